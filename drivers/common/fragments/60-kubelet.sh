#!/bin/bash
# The kubelet: registers the node (masters tainted for the control plane), runs the static
# pods, uses the external OpenStack cloud provider when it is enabled.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

server=$(api_server_url)
is_master && server="https://127.0.0.1:6443"
kubeconfig "$KUBE_DIR/kubelet.conf" kubelet "$server"
kubeconfig "$KUBE_DIR/kube-proxy.conf" kube-proxy "$server"

cgroup=${CGROUP_DRIVER:-systemd}
cat > /var/lib/kubelet-config.yaml <<CONFIG
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: ${cgroup}
clusterDNS: [${DNS_SERVICE_IP}]
clusterDomain: ${DNS_CLUSTER_DOMAIN}
staticPodPath: ${MANIFESTS_DIR}
authentication:
  x509: {clientCAFile: ${PKI_DIR}/ca.crt}
  webhook: {enabled: true}
  anonymous: {enabled: false}
authorization: {mode: Webhook}
tlsCertFile: ${PKI_DIR}/kubelet.crt
tlsPrivateKeyFile: ${PKI_DIR}/kubelet.key
rotateCertificates: false
serverTLSBootstrap: false
CONFIG

labels="magnum.openstack.org/nodegroup=${NODEGROUP_NAME},magnum.openstack.org/role=${NODEGROUP_ROLE}"
taints=""
if is_master; then
    labels="${labels},node-role.kubernetes.io/control-plane="
    taints="--register-with-taints=node-role.kubernetes.io/control-plane=:NoSchedule"
fi
cloud=""
is_true "${CLOUD_PROVIDER_ENABLED:-false}" && cloud="--cloud-provider=external"

mkdir -p "$MANIFESTS_DIR" /var/lib/kubelet
cat > /etc/systemd/system/kubelet.service <<UNIT
[Unit]
Description=Kubernetes kubelet
After=containerd.service
Requires=containerd.service

[Service]
ExecStart=$BIN_DIR/kubelet --config=/var/lib/kubelet-config.yaml \\
  --kubeconfig=$KUBE_DIR/kubelet.conf --hostname-override=${NODE_NAME} --node-ip=${NODE_IP} \\
  --container-runtime-endpoint=unix:///run/containerd/containerd.sock \\
  --node-labels=${labels} ${taints} ${cloud} ${KUBELET_OPTIONS:-}
Restart=always
RestartSec=5

[Install]
WantedBy=multi-user.target
UNIT
systemctl daemon-reload
systemctl enable --now kubelet
if is_master; then
    retry 120 curl --silent --fail --cacert "$PKI_DIR/ca.crt" https://127.0.0.1:6443/readyz \
        --cert "$PKI_DIR/admin.crt" --key "$PKI_DIR/admin.key" >/dev/null
    is_true "${TLS_DISABLED:-false}" && systemctl start kube-api-http
fi
exit 0
