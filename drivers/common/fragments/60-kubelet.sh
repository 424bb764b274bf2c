#!/bin/bash
# The kubelet: registers the node with its node group's labels and taints (masters tainted
# for the control plane), runs the static pods, uses the external OpenStack cloud provider
# when it is enabled. The unit is fixed text; this node's values reach it through
# kubelet.env, and the kubelet's configuration file is YAML of JSON-quoted values.
# Sourcing the file only defines its functions (the files are functions of the settings).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

kubelet_config() {
    local cgroup=systemd
    [[ "${CGROUP_DRIVER:-systemd}" == cgroupfs ]] && cgroup=cgroupfs
    cat <<CONFIG
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: ${cgroup}
clusterDNS: [$(json_quote "$DNS_SERVICE_IP")]
clusterDomain: $(json_quote "$DNS_CLUSTER_DOMAIN")
staticPodPath: /etc/kubernetes/manifests
authentication:
  x509: {clientCAFile: /etc/kubernetes/pki/ca.crt}
  webhook: {enabled: true}
  anonymous: {enabled: false}
authorization: {mode: Webhook}
tlsCertFile: /etc/kubernetes/pki/kubelet.crt
tlsPrivateKeyFile: /etc/kubernetes/pki/kubelet.key
rotateCertificates: false
serverTLSBootstrap: false
CONFIG
}

# The labels and taints this node registers with: Magnum's own, then the node group's
# node_labels / node_taints (checked by the API and the driver against Kubernetes' grammar).
node_labels() {
    local labels="magnum.openstack.org/nodegroup=${NODEGROUP_NAME},magnum.openstack.org/role=${NODEGROUP_ROLE}"
    is_master && labels="${labels},node-role.kubernetes.io/control-plane="
    [[ -n "${NODE_LABELS:-}" ]] && labels="${labels},${NODE_LABELS}"
    echo "$labels"
}

node_taints() {
    local taints=""
    is_master && taints="node-role.kubernetes.io/control-plane=:NoSchedule"
    if [[ -n "${NODE_TAINTS:-}" ]]; then
        taints="${taints:+$taints,}${NODE_TAINTS}"
    fi
    echo "$taints"
}

# kubelet_env: the EnvironmentFile of kubelet.service. KUBELET_ARGS is split at whitespace
# by systemd (the kubelet_options label), every other value is one argument.
kubelet_env() {
    local args="" taints
    taints=$(node_taints)
    [[ -n "$taints" ]] && args="--register-with-taints=${taints}"
    is_true "${CLOUD_PROVIDER_ENABLED:-false}" && args="${args:+$args }--cloud-provider=external"
    [[ -n "${KUBELET_OPTIONS:-}" ]] && args="${args:+$args }${KUBELET_OPTIONS}"
    systemd_env KUBELET_HOSTNAME "$NODE_NAME"
    systemd_env KUBELET_NODE_IP "$NODE_IP"
    systemd_env KUBELET_NODE_LABELS "$(node_labels)"
    systemd_env KUBELET_ARGS "$args"
}

kubelet_unit() {
    cat <<'UNIT'
[Unit]
Description=Kubernetes kubelet
After=containerd.service
Requires=containerd.service

[Service]
EnvironmentFile=/etc/kubernetes/kubelet.env
ExecStart=/usr/local/bin/kubelet --config=/var/lib/kubelet-config.yaml \
  --kubeconfig=/etc/kubernetes/kubelet.conf --hostname-override=${KUBELET_HOSTNAME} \
  --node-ip=${KUBELET_NODE_IP} \
  --container-runtime-endpoint=unix:///run/containerd/containerd.sock \
  --node-labels=${KUBELET_NODE_LABELS} $KUBELET_ARGS
Restart=always
RestartSec=5

[Install]
WantedBy=multi-user.target
UNIT
}

main() {
    local server
    server=$(api_server_url)
    is_master && server="https://127.0.0.1:6443"
    kubeconfig "$KUBE_DIR/kubelet.conf" kubelet "$server"
    kubeconfig "$KUBE_DIR/kube-proxy.conf" kube-proxy "$server"

    mkdir -p "$MANIFESTS_DIR" /var/lib/kubelet
    kubelet_config > /var/lib/kubelet-config.yaml
    kubelet_env > "$KUBE_DIR/kubelet.env"
    kubelet_unit > /etc/systemd/system/kubelet.service
    systemctl daemon-reload
    systemctl enable --now kubelet
    if is_master; then
        retry 120 curl --silent --fail --cacert "$PKI_DIR/ca.crt" https://127.0.0.1:6443/readyz \
            --cert "$PKI_DIR/admin.crt" --key "$PKI_DIR/admin.key" >/dev/null
        if is_true "${TLS_DISABLED:-false}"; then
            systemctl start kube-api-http
        fi
    fi
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    main "$@"
fi
