#!/bin/bash
# Helpers the bootstrap fragments share (sourced, never run on its own; sourcing it again is
# a no-op, so several fragments' functions can be loaded into one shell).
# shellcheck disable=SC2034  # the constants are used by the fragments sourcing this file
[[ -n "${MAGNUM_LIB_LOADED:-}" ]] && return 0
MAGNUM_LIB_LOADED=1

readonly KUBE_DIR=/etc/kubernetes
readonly PKI_DIR=/etc/kubernetes/pki
readonly MANIFESTS_DIR=/etc/kubernetes/manifests
readonly ADDONS_DIR=/etc/kubernetes/addons
readonly BIN_DIR=/usr/local/bin
readonly ARCH=amd64

log() { echo "[$(date -u +%T)] $*"; }

is_true() { [[ "${1,,}" == "true" || "$1" == "1" || "${1,,}" == "yes" ]]; }

# Settings travel into files other programs parse; each goes through the quoting of its
# reader, never pasted raw. The driver already refused what its grammar does not allow
# (magnum_common/grammar.py): these make whatever is left inert.

# json_quote <value>: a JSON string, which is also a YAML, TOML and gcfg double-quoted one
# (backslash and quote escaped, control characters as \uXXXX escapes).
json_quote() {
    local s=${1//\\/\\\\} out="" c i
    s=${s//\"/\\\"}
    if [[ "$s" =~ [[:cntrl:]] ]]; then
        for ((i = 0; i < ${#s}; i++)); do
            c=${s:i:1}
            [[ "$c" =~ [[:cntrl:]] ]] && printf -v c '\\u%04x' "'$c"
            out+=$c
        done
        s=$out
    fi
    printf '"%s"' "$s"
}

# sh_quote <value>: a POSIX shell single-quoted word.
sh_quote() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

# sed_escape <value>: text for the replacement side of a sed s command with the delimiter
# #, @ or / (a line break cannot be escaped: refused).
sed_escape() {
    [[ "$1" == *$'\n'* ]] && return 1
    printf '%s' "$1" | sed -e 's/[\\&#@/]/\\&/g'
}

# systemd_env <name> <value>: one EnvironmentFile= line systemd reads back as exactly
# <value> (double-quoted; backslash, quote, dollar and backtick escaped). Values holding a
# control character are refused.
systemd_env() {
    local value=$2
    [[ "$value" =~ [[:cntrl:]] ]] && { log "refusing $1: control character"; return 1; }
    value=${value//\\/\\\\}
    value=${value//\"/\\\"}
    value=${value//\$/\\\$}
    value=${value//\`/\\\`}
    printf '%s="%s"\n' "$1" "$value"
}

is_master() { is_true "${IS_MASTER:-false}"; }

# retry <attempts> <command...>: run until it succeeds, 5 s apart.
retry() {
    local attempts=$1 n=1
    shift
    until "$@"; do
        if (( n >= attempts )); then
            return 1
        fi
        n=$((n + 1))
        sleep 5
    done
}

curl_ca_args() {
    if ! is_true "${VERIFY_CA:-true}"; then
        echo "--insecure"
    elif [[ -s /etc/magnum/openstack-ca.pem ]]; then
        echo "--cacert /etc/magnum/openstack-ca.pem"
    fi
}

# proxy_profile: the proxy settings as sh assignments (/etc/profile.d).
proxy_profile() {
    local name
    for name in HTTP_PROXY HTTPS_PROXY NO_PROXY; do
        printf 'export %s=%s %s=%s\n' "$name" "$(sh_quote "${!name:-}")" \
            "${name,,}" "$(sh_quote "${!name:-}")"
    done
}

# proxy_env: the proxy settings as an EnvironmentFile= (upper- and lower-case names).
proxy_env() {
    local name
    for name in HTTP_PROXY HTTPS_PROXY NO_PROXY; do
        systemd_env "$name" "${!name:-}"
        systemd_env "${name,,}" "${!name:-}"
    done
}

# download <url> <destination> [sha256]: fetch through the proxy settings, verify if asked.
download() {
    local url=$1 dest=$2 sum=${3:-}
    retry 10 curl --silent --show-error --fail --location -o "$dest.part" "$url" || return 1
    if [[ -n "$sum" ]] && ! echo "$sum  $dest.part" | sha256sum --check --status; then
        log "checksum mismatch for $url"
        rm -f "$dest.part"
        return 1
    fi
    mv "$dest.part" "$dest"
}

# An image reference under the operator's registry prefix when one is set.
image() {
    local default_prefix=$1 name=$2 tag=$3
    echo "${CONTAINER_INFRA_PREFIX:-$default_prefix}${name}:${tag}"
}

#: Where trustee_token keeps its token between runs (tmpfs, root only, like the password it
#: is made from in bootstrap.env): the hand-over timer runs every 15 s and would otherwise
#: log in to Keystone each time.
TRUSTEE_TOKEN_CACHE=${TRUSTEE_TOKEN_CACHE:-/run/magnum/trustee-token}
#: A kept token is used until this many seconds before it expires.
readonly TRUSTEE_TOKEN_MARGIN=300

# trustee_token: a Keystone token scoped to the cluster's trust, as the cluster's trustee;
# the kept one while it is for this trust and not about to expire.
trustee_token() {
    local trust expires token work
    if [[ -s "$TRUSTEE_TOKEN_CACHE" ]] && read -r trust expires token < "$TRUSTEE_TOKEN_CACHE" &&
        [[ "$trust" == "$TRUST_ID" && "$expires" =~ ^[0-9]+$ && -n "$token" ]] &&
        (( $(date +%s) < expires - TRUSTEE_TOKEN_MARGIN )); then
        echo "$token"
        return 0
    fi
    work=$(mktemp -d)
    if ! new_trustee_token "$work"; then
        rm -rf "$work"
        return 1
    fi
    token=$(awk 'tolower($1) == "x-subject-token:" {print $2}' "$work/headers" | tr -d '\r')
    expires=$(jq -r '.token.expires_at // empty' "$work/body")
    rm -rf "$work"
    [[ -n "$token" ]] || return 1
    if [[ -n "$expires" ]] && expires=$(date -u -d "$expires" +%s 2>/dev/null); then
        keep_trustee_token "$expires" "$token" || true  # not kept: the next run logs in
    fi
    echo "$token"
}

# keep_trustee_token <expiry (epoch seconds)> <token>: written whole or not at all.
keep_trustee_token() {
    local tmp
    (umask 077 && mkdir -p "$(dirname "$TRUSTEE_TOKEN_CACHE")") || return 1
    tmp=$(mktemp "$TRUSTEE_TOKEN_CACHE.XXXXXX") || return 1
    if printf '%s %s %s\n' "$TRUST_ID" "$1" "$2" > "$tmp" && mv "$tmp" "$TRUSTEE_TOKEN_CACHE"
    then
        return 0
    fi
    rm -f "$tmp"
    return 1
}

# new_trustee_token <dir>: log in as the trustee with the trust; Keystone's answer in
# <dir>/headers and <dir>/body.
new_trustee_token() {
    local body
    body=$(jq -cn --arg id "$TRUSTEE_USER_ID" --arg password "$TRUSTEE_PASSWORD" \
        --arg trust "$TRUST_ID" '{auth: {identity: {methods: ["password"],
            password: {user: {id: $id, password: $password}}},
            scope: {"OS-TRUST:trust": {id: $trust}}}}')
    # shellcheck disable=SC2046
    curl --silent --show-error --fail $(curl_ca_args) -X POST \
        -H "Content-Type: application/json" -d "$body" -D "$1/headers" -o "$1/body" \
        "$AUTH_URL/auth/tokens"
}

# forget_trustee_token: a call with the kept token failed (revoked, the trust replaced):
# the next one logs in again.
forget_trustee_token() { rm -f "$TRUSTEE_TOKEN_CACHE"; }

# magnum_auth: the header that authenticates this node to Magnum's certificate routes: the
# trustee's token when the node holds the trust, else the cluster's node token.
magnum_auth() {
    local token
    if [[ -n "${NODE_TOKEN:-}" ]]; then
        echo "X-Magnum-Node-Token: $NODE_TOKEN"
        return
    fi
    token=$(trustee_token) || return 1
    echo "X-Auth-Token: $token"
}

# magnum_ca <file>: the cluster CA certificate from Magnum.
magnum_ca() {
    local auth
    auth=$(magnum_auth) || return 1
    # shellcheck disable=SC2046
    curl --silent --show-error --fail $(curl_ca_args) -H "$auth" \
        -H "OpenStack-API-Version: container-infra latest" \
        "$MAGNUM_URL/certificates/$CLUSTER_UUID" | jq -r .pem > "$1" || {
        forget_trustee_token
        return 1
    }
}

# sign_csr <csr file> <certificate file>: have Magnum sign a CSR with the cluster CA.
sign_csr() {
    local auth body
    auth=$(magnum_auth) || return 1
    body=$(jq -n --arg uuid "$CLUSTER_UUID" --rawfile csr "$1" '{cluster_uuid: $uuid, csr: $csr}')
    # shellcheck disable=SC2046
    curl --silent --show-error --fail $(curl_ca_args) -X POST -H "$auth" \
        -H "Content-Type: application/json" -H "OpenStack-API-Version: container-infra latest" \
        -d "$body" "$MAGNUM_URL/certificates" | jq -r .pem > "$2" || {
        forget_trustee_token
        return 1
    }
}

# issue_cert <name> <CN> <O> [SANs]: a 4096-bit key and a Magnum-signed certificate.
issue_cert() {
    local name=$1 cn=$2 org=$3 sans=${4:-}
    local key="$PKI_DIR/$name.key" csr="$PKI_DIR/$name.csr" conf="$PKI_DIR/$name.cnf"
    {
        echo "[req]"
        echo "distinguished_name = dn"
        echo "req_extensions = ext"
        echo "prompt = no"
        echo "[dn]"
        echo "CN = $cn"
        [[ -n "$org" ]] && echo "O = $org"
        echo "[ext]"
        echo "keyUsage = critical, digitalSignature, keyEncipherment"
        echo "extendedKeyUsage = clientAuth, serverAuth"
        [[ -n "$sans" ]] && echo "subjectAltName = $sans"
    } > "$conf"
    [[ -s "$key" ]] || openssl genrsa -out "$key" 4096 2>/dev/null
    chmod 600 "$key"
    openssl req -new -key "$key" -out "$csr" -config "$conf"
    retry 10 sign_csr "$csr" "$PKI_DIR/$name.crt"
}

# kubeconfig <file> <cert name> <server>: a kubeconfig for one of the issued certificates.
kubeconfig() {
    local file=$1 name=$2 server=$3
    cat > "$file" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: kubernetes
  cluster:
    certificate-authority: $PKI_DIR/ca.crt
    server: $server
contexts:
- name: default
  context:
    cluster: kubernetes
    user: $name
current-context: default
users:
- name: $name
  user:
    client-certificate: $PKI_DIR/$name.crt
    client-key: $PKI_DIR/$name.key
KUBECONFIG
    chmod 600 "$file"
}

# The API as node components reach it: always TLS on 6443 with the node's own certificate.
# A template with TLS disabled only adds a plain-HTTP port (8080) for clients; the API load
# balancer of such a cluster carries both.
api_server_url() { echo "https://${API_PRIVATE_ADDRESS}:6443"; }

kubectl_admin() { "$BIN_DIR/kubectl" --kubeconfig "$KUBE_DIR/admin.conf" "$@"; }
