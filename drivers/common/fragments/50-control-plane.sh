#!/bin/bash
# The control plane as static pods the kubelet runs: API server, controller manager and
# scheduler of the cluster's version; a plain-HTTP API proxy on masters of TLS-less clusters.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

is_master || exit 0
mkdir -p "$MANIFESTS_DIR"
prefix=${HYPERKUBE_PREFIX:-registry.k8s.io/}
local_api="https://127.0.0.1:6443"
kubeconfig "$KUBE_DIR/admin.conf" admin "$local_api"
kubeconfig "$KUBE_DIR/controller-manager.conf" controller-manager "$local_api"
kubeconfig "$KUBE_DIR/scheduler.conf" scheduler "$local_api"

authz="Node,RBAC"
webhook_args=""
if is_true "${KEYSTONE_AUTH_ENABLED:-true}"; then
    authz="Node,Webhook,RBAC"
    cat > "$KUBE_DIR/keystone-webhook.conf" <<WEBHOOK
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
    webhook_args="--authentication-token-webhook-config-file=$KUBE_DIR/keystone-webhook.conf --authorization-webhook-config-file=$KUBE_DIR/keystone-webhook.conf"
fi

# static_pod <name> <image> <command line>: a host-network pod with the PKI mounted.
static_pod() {
    local name=$1 image=$2 command=$3 arg args=""
    for arg in $command; do
        args="${args}    - ${arg}"$'\n'
    done
    cat > "$MANIFESTS_DIR/$name.yaml" <<POD
apiVersion: v1
kind: Pod
metadata:
  name: $name
  namespace: kube-system
  labels: {component: $name, tier: control-plane}
spec:
  hostNetwork: true
  priorityClassName: system-node-critical
  containers:
  - name: $name
    image: $image
    command:
$args    volumeMounts:
    - {name: kubernetes, mountPath: $KUBE_DIR, readOnly: true}
  volumes:
  - name: kubernetes
    hostPath: {path: $KUBE_DIR}
POD
}

static_pod kube-apiserver "${prefix}kube-apiserver:${KUBE_TAG}" "kube-apiserver
 --advertise-address=${NODE_IP} --secure-port=6443 --allow-privileged=${KUBE_ALLOW_PRIV:-true}
 --etcd-servers=https://127.0.0.1:2379 --etcd-cafile=$PKI_DIR/ca.crt
 --etcd-certfile=$PKI_DIR/etcd.crt --etcd-keyfile=$PKI_DIR/etcd.key
 --client-ca-file=$PKI_DIR/ca.crt --tls-cert-file=$PKI_DIR/apiserver.crt
 --tls-private-key-file=$PKI_DIR/apiserver.key
 --kubelet-client-certificate=$PKI_DIR/apiserver-kubelet-client.crt
 --kubelet-client-key=$PKI_DIR/apiserver-kubelet-client.key
 --service-cluster-ip-range=${PORTAL_NETWORK_CIDR}
 --service-account-key-file=$PKI_DIR/sa.pub --service-account-signing-key-file=$PKI_DIR/sa.key
 --service-account-issuer=https://kubernetes.default.svc
 --authorization-mode=${authz} --enable-admission-plugins=${ADMISSION_CONTROL_LIST}
 --requestheader-client-ca-file=$PKI_DIR/ca.crt --requestheader-allowed-names=front-proxy-client
 --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group
 --requestheader-extra-headers-prefix=X-Remote-Extra-
 --proxy-client-cert-file=$PKI_DIR/front-proxy-client.crt
 --proxy-client-key-file=$PKI_DIR/front-proxy-client.key
 ${webhook_args} ${KUBEAPI_OPTIONS:-}"

static_pod kube-controller-manager "${prefix}kube-controller-manager:${KUBE_TAG}" "kube-controller-manager
 --kubeconfig=$KUBE_DIR/controller-manager.conf --leader-elect=true
 --cluster-cidr=${PODS_NETWORK_CIDR} --allocate-node-cidrs=true
 --node-cidr-mask-size=${FLANNEL_NETWORK_SUBNETLEN:-24}
 --service-cluster-ip-range=${PORTAL_NETWORK_CIDR}
 --cluster-signing-cert-file=$PKI_DIR/ca.crt --root-ca-file=$PKI_DIR/ca.crt
 --service-account-private-key-file=$PKI_DIR/sa.key --use-service-account-credentials=true
 --cloud-provider=external ${KUBECONTROLLER_OPTIONS:-}"

static_pod kube-scheduler "${prefix}kube-scheduler:${KUBE_TAG}" "kube-scheduler
 --kubeconfig=$KUBE_DIR/scheduler.conf --leader-elect=true ${KUBESCHEDULER_OPTIONS:-}"

if is_true "${TLS_DISABLED:-false}"; then
    cat > /etc/systemd/system/kube-api-http.service <<UNIT
[Unit]
Description=Plain-HTTP access to the Kubernetes API (cluster template has TLS disabled)
After=network-online.target

[Service]
ExecStart=$BIN_DIR/kubectl --kubeconfig $KUBE_DIR/admin.conf proxy --address=0.0.0.0 \\
  --port=8080 --accept-hosts=.*
Restart=always
RestartSec=5

[Install]
WantedBy=multi-user.target
UNIT
    systemctl daemon-reload
    systemctl enable kube-api-http
fi
