#!/bin/bash
# Configure this node as part of its Magnum cluster: run every fragment in order, then tell
# Heat how it went by signalling the node's wait condition (SUCCESS or FAILURE + reason).
set -uo pipefail

readonly FRAGMENTS=/usr/local/lib/magnum/fragments
readonly STATE_DIR=/var/lib/magnum
readonly LOG_FILE=/var/log/magnum-bootstrap.log

# reserved_name <name>: names no setting may take, since an interpreter or the dynamic
# linker acts on them (the driver refuses them too: magnum_common/grammar.py).
reserved_name() {
    case "$1" in
        BASH_ENV | ENV | PATH | IFS | CDPATH | GLOBIGNORE | PS4 | SHELLOPTS | BASHOPTS | \
            PROMPT_COMMAND | HOME | SHELL | TMPDIR | PERL5LIB | PERL5OPT | RUBYOPT | RUBYLIB | \
            NODE_OPTIONS | OPENSSL_CONF | GCONV_PATH | HOSTALIASES | RESOLV_HOST_CONF | \
            LOCALDOMAIN | TZDIR | NLSPATH | EDITOR | PAGER | SYSTEMD_PAGER | KUBECONFIG | \
            SSL_CERT_FILE | SSL_CERT_DIR | CURL_CA_BUNDLE | GODEBUG | GOTRACEBACK | \
            LD_* | PYTHON* | BASH_FUNC_* | LC_* | GIT_* | DYLD_* | MALLOC_*)
            return 0 ;;
    esac
    return 1
}

# load_settings <file>: the file's KEY=value lines into the environment. The file is read
# as data, never sourced: each name is checked, each value taken verbatim (a placeholder
# Heat did not fill reads as empty). A malformed line fails the whole file.
load_settings() {
    local line key value
    while IFS= read -r line || [[ -n "$line" ]]; do
        [[ -z "$line" ]] && continue
        key=${line%%=*}
        value=${line#*=}
        if [[ "$line" != *=* || ! "$key" =~ ^[A-Z][A-Z0-9_]{0,63}$ ]] || reserved_name "$key"; then
            echo "malformed setting in $1: ${key:0:64}" >&2
            return 1
        fi
        [[ "$value" == @@*@@ ]] && value=""
        printf -v "$key" '%s' "$value" || return 1
        export "${key?}"
    done < "$1"
}

# signal <status> <reason>: one signal per generation this node stands for (ids g0..gN), so
# the wait condition, which counts N+1 signals, completes for a node created at any
# generation and, after a replacement, only once the new node has said gN.
signal() {
    local status=$1 reason=$2 generation body
    if [[ -z "${WAIT_ENDPOINT:-}" ]]; then
        echo "no wait condition to signal ($status: $reason)"
        return 0
    fi
    for ((generation = 0; generation <= ${GENERATION:-0}; generation++)); do
        body=$(jq -cn --arg status "$status" --arg reason "$reason" \
            --arg id "${NODE_NAME:-node}-g${generation}" \
            '{status: $status, reason: $reason, data: $status, id: $id}')
        curl --silent --show-error --fail --retry 20 --retry-delay 5 --retry-all-errors \
            -X POST -H "X-Auth-Token: ${WAIT_TOKEN}" -H "Content-Type: application/json" \
            --data "$body" "$WAIT_ENDPOINT" || return 1
    done
}

main() {
    mkdir -p "$STATE_DIR"
    exec > >(tee -a "$LOG_FILE") 2>&1

    # Settings: bootstrap.env from the driver, then runtime.env with the values only Heat
    # knows (read last: they win).
    local loaded=0 fragment
    load_settings /etc/magnum/bootstrap.env || loaded=1
    load_settings /etc/magnum/runtime.env || loaded=1
    if (( loaded != 0 )); then
        signal FAILURE "malformed settings on ${NODE_NAME:-node}"
        exit 1
    fi

    for fragment in "$FRAGMENTS"/*.sh; do
        [[ "$(basename "$fragment")" == lib.sh ]] && continue
        echo "=== $(date -u +%FT%TZ) $(basename "$fragment")"
        if ! bash "$fragment"; then
            signal FAILURE "bootstrap step $(basename "$fragment") failed on ${NODE_NAME:-node}"
            exit 1
        fi
    done

    touch "$STATE_DIR/bootstrap.done"
    signal SUCCESS "${NODE_NAME:-node} is configured (Kubernetes ${KUBE_TAG:-unknown})"
}

# Sourcing the file only defines its functions (the tests read settings with them).
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    main "$@"
fi
