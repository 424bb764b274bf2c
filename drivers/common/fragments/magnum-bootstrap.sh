#!/bin/bash
# Configure this node as part of its Magnum cluster: run every fragment in order, then tell
# Heat how it went by signalling the node's wait condition (SUCCESS or FAILURE + reason).
set -uo pipefail

readonly FRAGMENTS=/usr/local/lib/magnum/fragments
readonly STATE_DIR=/var/lib/magnum
readonly LOG_FILE=/var/log/magnum-bootstrap.log

mkdir -p "$STATE_DIR"
exec > >(tee -a "$LOG_FILE") 2>&1

# Settings: bootstrap.env is shell-quoted by the driver; runtime.env holds values only Heat
# knows, one KEY=value per line, where a placeholder Heat did not fill reads as empty.
set -a
# shellcheck source=/dev/null
. /etc/magnum/bootstrap.env
while IFS= read -r line; do
    [[ -z "$line" || "$line" != *=* ]] && continue
    key=${line%%=*}
    value=${line#*=}
    [[ "$value" == @@*@@ ]] && value=""
    printf -v "$key" '%s' "$value"
    export "${key?}"
done < /etc/magnum/runtime.env
set +a

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
        body=$(printf '{"status": "%s", "reason": "%s", "data": "%s", "id": "%s-g%s"}' \
            "$status" "${reason//\"/\'}" "$status" "${NODE_NAME:-node}" "$generation")
        curl --silent --show-error --fail --retry 20 --retry-delay 5 --retry-all-errors \
            -X POST -H "X-Auth-Token: ${WAIT_TOKEN}" -H "Content-Type: application/json" \
            --data "$body" "$WAIT_ENDPOINT" || return 1
    done
}

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
