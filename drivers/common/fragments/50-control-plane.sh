#!/bin/bash
# The control plane as static pods the kubelet runs: API server, controller manager and
# scheduler of the cluster's version; a plain-HTTP API proxy on masters of TLS-less clusters.
# Sourcing the file only defines its functions (the manifests are functions of the settings).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# static_pod <name> <image> <arg>...: the manifest (on stdout) of a host-network pod with the
# PKI mounted. Every value is a JSON string, so YAML reads it back as exactly that string.
static_pod() {
    local name=$1 image=$2 arg
    shift 2
    cat <<POD
apiVersion: v1
kind: Pod
metadata:
  name: $(json_quote "$name")
  namespace: kube-system
  labels: {component: $(json_quote "$name"), tier: control-plane}
spec:
  hostNetwork: true
  priorityClassName: system-node-critical
  containers:
  - name: $(json_quote "$name")
    image: $(json_quote "$image")
    command:
POD
    for arg in "$@"; do
        printf '    - %s\n' "$(json_quote "$arg")"
    done
    cat <<'POD'
    volumeMounts:
    - {name: kubernetes, mountPath: /etc/kubernetes, readOnly: true}
  volumes:
  - name: kubernetes
    hostPath: {path: /etc/kubernetes}
POD
}

# options <label value>: a component's extra options (the *_options labels), one word per
# array element in OPTIONS: split at whitespace, never glob-expanded.
options() {
    OPTIONS=()
    read -r -a OPTIONS <<< "${1:-}" || true
}

image_prefix() { echo "${HYPERKUBE_PREFIX:-registry.k8s.io/}"; }

apiserver_manifest() {
    local authz="Node,RBAC" args
    args=(kube-apiserver "--advertise-address=${NODE_IP}" --secure-port=6443
        "--allow-privileged=${KUBE_ALLOW_PRIV:-true}"
        --etcd-servers=https://127.0.0.1:2379 "--etcd-cafile=$PKI_DIR/ca.crt"
        "--etcd-certfile=$PKI_DIR/etcd.crt" "--etcd-keyfile=$PKI_DIR/etcd.key"
        "--client-ca-file=$PKI_DIR/ca.crt" "--tls-cert-file=$PKI_DIR/apiserver.crt"
        "--tls-private-key-file=$PKI_DIR/apiserver.key"
        "--kubelet-client-certificate=$PKI_DIR/apiserver-kubelet-client.crt"
        "--kubelet-client-key=$PKI_DIR/apiserver-kubelet-client.key"
        "--service-cluster-ip-range=${PORTAL_NETWORK_CIDR}"
        "--service-account-key-file=$PKI_DIR/sa.pub"
        "--service-account-signing-key-file=$PKI_DIR/sa.key"
        --service-account-issuer=https://kubernetes.default.svc
        "--enable-admission-plugins=${ADMISSION_CONTROL_LIST}"
        "--requestheader-client-ca-file=$PKI_DIR/ca.crt"
        --requestheader-allowed-names=front-proxy-client
        --requestheader-username-headers=X-Remote-User
        --requestheader-group-headers=X-Remote-Group
        --requestheader-extra-headers-prefix=X-Remote-Extra-
        "--proxy-client-cert-file=$PKI_DIR/front-proxy-client.crt"
        "--proxy-client-key-file=$PKI_DIR/front-proxy-client.key")
    if is_true "${KEYSTONE_AUTH_ENABLED:-true}"; then
        authz="Node,Webhook,RBAC"
        args+=("--authentication-token-webhook-config-file=$KUBE_DIR/keystone-webhook.conf"
            "--authorization-webhook-config-file=$KUBE_DIR/keystone-webhook.conf")
    fi
    args+=("--authorization-mode=${authz}")
    options "${KUBEAPI_OPTIONS:-}"
    static_pod kube-apiserver "$(image_prefix)kube-apiserver:${KUBE_TAG}" "${args[@]}" \
        "${OPTIONS[@]}"
}

controller_manager_manifest() {
    local args
    args=(kube-controller-manager "--kubeconfig=$KUBE_DIR/controller-manager.conf"
        --leader-elect=true "--cluster-cidr=${PODS_NETWORK_CIDR}" --allocate-node-cidrs=true
        "--node-cidr-mask-size=${FLANNEL_NETWORK_SUBNETLEN:-24}"
        "--service-cluster-ip-range=${PORTAL_NETWORK_CIDR}"
        "--cluster-signing-cert-file=$PKI_DIR/ca.crt" "--root-ca-file=$PKI_DIR/ca.crt"
        "--service-account-private-key-file=$PKI_DIR/sa.key"
        --use-service-account-credentials=true --cloud-provider=external)
    # cert_manager_api: the CA key lets the cluster sign its own certificate requests.
    [[ -n "${CA_KEY:-}" ]] && args+=("--cluster-signing-key-file=$PKI_DIR/ca.key")
    options "${KUBECONTROLLER_OPTIONS:-}"
    static_pod kube-controller-manager "$(image_prefix)kube-controller-manager:${KUBE_TAG}" \
        "${args[@]}" "${OPTIONS[@]}"
}

scheduler_manifest() {
    options "${KUBESCHEDULER_OPTIONS:-}"
    static_pod kube-scheduler "$(image_prefix)kube-scheduler:${KUBE_TAG}" kube-scheduler \
        "--kubeconfig=$KUBE_DIR/scheduler.conf" --leader-elect=true "${OPTIONS[@]}"
}

keystone_webhook_config() {
    cat <<'WEBHOOK'
apiVersion: v1
kind: Config
clusters:
- name: webhook
  cluster:
    insecure-skip-tls-verify: true
    server: https://127.0.0.1:8443/webhook
contexts:
- name: webhook
  context:
    cluster: webhook
    user: webhook
current-context: webhook
users:
- name: webhook
WEBHOOK
}

# The plain-HTTP API of a TLS-less cluster: fixed text, no setting in it.
api_http_unit() {
    cat <<'UNIT'
[Unit]
Description=Plain-HTTP access to the Kubernetes API (cluster template has TLS disabled)
After=network-online.target

[Service]
ExecStart=/usr/local/bin/kubectl --kubeconfig /etc/kubernetes/admin.conf proxy \
  --address=0.0.0.0 --port=8080 --accept-hosts=.*
Restart=always
RestartSec=5

[Install]
WantedBy=multi-user.target
UNIT
}

main() {
    is_master || return 0
    mkdir -p "$MANIFESTS_DIR"
    local local_api="https://127.0.0.1:6443"
    kubeconfig "$KUBE_DIR/admin.conf" admin "$local_api"
    kubeconfig "$KUBE_DIR/controller-manager.conf" controller-manager "$local_api"
    kubeconfig "$KUBE_DIR/scheduler.conf" scheduler "$local_api"
    if is_true "${KEYSTONE_AUTH_ENABLED:-true}"; then
        keystone_webhook_config > "$KUBE_DIR/keystone-webhook.conf"
    fi
    apiserver_manifest > "$MANIFESTS_DIR/kube-apiserver.yaml"
    controller_manager_manifest > "$MANIFESTS_DIR/kube-controller-manager.yaml"
    scheduler_manifest > "$MANIFESTS_DIR/kube-scheduler.yaml"
    if is_true "${TLS_DISABLED:-false}"; then
        api_http_unit > /etc/systemd/system/kube-api-http.service
        systemctl daemon-reload
        systemctl enable kube-api-http
    fi
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    main "$@"
fi
