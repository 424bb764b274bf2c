#!/bin/bash
# Certificates: the cluster CA from Magnum and this node's keys, signed by Magnum through
# the trustee's trust-scoped token. Masters also get the API server's and etcd's
# certificates, the control-plane clients' and the service-account keypair.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

install -d -m 755 "$PKI_DIR"
retry 30 magnum_ca "$PKI_DIR/ca.crt"
grep -q "BEGIN CERTIFICATE" "$PKI_DIR/ca.crt"

node_sans="DNS:${NODE_NAME},IP:${NODE_IP}"
[[ -n "${NODE_PUBLIC_IP:-}" ]] && node_sans="${node_sans},IP:${NODE_PUBLIC_IP}"
issue_cert kubelet "system:node:${NODE_NAME}" system:nodes "$node_sans"
issue_cert kube-proxy system:kube-proxy ""

if ! is_master; then
    exit 0
fi

service_network=${PORTAL_NETWORK_CIDR%/*}
service_ip="${service_network%.*}.$(( ${service_network##*.} + 1 ))"
api_sans="${node_sans},IP:127.0.0.1,IP:${service_ip},IP:${API_PRIVATE_ADDRESS}"
[[ -n "${API_PUBLIC_ADDRESS:-}" ]] && api_sans="${api_sans},IP:${API_PUBLIC_ADDRESS}"
for name in kubernetes kubernetes.default kubernetes.default.svc \
        "kubernetes.default.svc.${DNS_CLUSTER_DOMAIN:-cluster.local}" localhost; do
    api_sans="${api_sans},DNS:${name}"
done
issue_cert apiserver kube-apiserver "" "$api_sans"
issue_cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters ""
issue_cert admin admin system:masters ""
issue_cert controller-manager system:kube-controller-manager "" ""
issue_cert scheduler system:kube-scheduler "" ""
# The API server's identity towards aggregated APIs (metrics-server), which trust the
# cluster CA for exactly this name (--requestheader-allowed-names).
issue_cert front-proxy-client front-proxy-client "" ""
issue_cert etcd "etcd-${NODE_NAME}" "" "IP:${NODE_IP},IP:127.0.0.1,DNS:localhost"

if [[ -n "${CA_KEY:-}" ]]; then  # cert_manager_api: the cluster signs its own CSRs
    (umask 077 && echo "$CA_KEY" | base64 -d > "$PKI_DIR/ca.key")
fi
echo "$KUBE_SA_KEY" | base64 -d > "$PKI_DIR/sa.pub"
echo "$KUBE_SA_PRIVATE_KEY" | base64 -d > "$PKI_DIR/sa.key"
chmod 600 "$PKI_DIR/sa.key"
