#!/bin/bash
# Helpers the bootstrap fragments share (sourced, never run on its own).

# shellcheck disable=SC2034  # the constants are used by the fragments sourcing this file
readonly KUBE_DIR=/etc/kubernetes
readonly PKI_DIR=/etc/kubernetes/pki
readonly MANIFESTS_DIR=/etc/kubernetes/manifests
readonly ADDONS_DIR=/etc/kubernetes/addons
readonly BIN_DIR=/usr/local/bin
readonly ARCH=amd64

log() { echo "[$(date -u +%T)] $*"; }

is_true() { [[ "${1,,}" == "true" || "$1" == "1" || "${1,,}" == "yes" ]]; }

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

# A Keystone token scoped to the cluster's trust, as the cluster's trustee.
trustee_token() {
    local body
    body=$(printf '{"auth": {"identity": {"methods": ["password"], "password": {"user": {"id": "%s", "password": "%s"}}}, "scope": {"OS-TRUST:trust": {"id": "%s"}}}}' \
        "$TRUSTEE_USER_ID" "$TRUSTEE_PASSWORD" "$TRUST_ID")
    # shellcheck disable=SC2046
    curl --silent --show-error --fail $(curl_ca_args) -X POST \
        -H "Content-Type: application/json" -d "$body" -D - -o /dev/null \
        "$AUTH_URL/auth/tokens" | awk 'tolower($1) == "x-subject-token:" {print $2}' | tr -d '\r'
}

# magnum_ca <file>: the cluster CA certificate from Magnum.
magnum_ca() {
    local token
    token=$(trustee_token) || return 1
    # shellcheck disable=SC2046
    curl --silent --show-error --fail $(curl_ca_args) -H "X-Auth-Token: $token" \
        -H "OpenStack-API-Version: container-infra latest" \
        "$MAGNUM_URL/certificates/$CLUSTER_UUID" | jq -r .pem > "$1"
}

# sign_csr <csr file> <certificate file>: have Magnum sign a CSR with the cluster CA.
sign_csr() {
    local token body
    token=$(trustee_token) || return 1
    body=$(jq -n --arg uuid "$CLUSTER_UUID" --rawfile csr "$1" '{cluster_uuid: $uuid, csr: $csr}')
    # shellcheck disable=SC2046
    curl --silent --show-error --fail $(curl_ca_args) -X POST -H "X-Auth-Token: $token" \
        -H "Content-Type: application/json" -H "OpenStack-API-Version: container-infra latest" \
        -d "$body" "$MAGNUM_URL/certificates" | jq -r .pem > "$2"
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
