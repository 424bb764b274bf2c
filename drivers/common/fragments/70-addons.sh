#!/bin/bash
# Cluster add-ons, applied once by the first master: kube-proxy, the pod network (flannel or
# calico), CoreDNS, the OpenStack cloud provider, Cinder CSI, metrics-server, ingress,
# autoscaler, auto-healing, Keystone auth and what else the labels ask for.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

is_master || exit 0
[[ "${NODE_INDEX:-0}" == "0" ]] || exit 0
[[ -f /var/lib/magnum/addons.done ]] && exit 0

readonly CPO=https://raw.githubusercontent.com/kubernetes/cloud-provider-openstack
readonly METRICS_SERVER_VERSION=v0.7.2
mkdir -p "$ADDONS_DIR"

# apply_url <url> [sed expression...]: fetch a release manifest, adapt it, apply it.
apply_url() {
    local url=$1 file
    shift
    file="$ADDONS_DIR/$(basename "$url")"
    download "$url" "$file"
    local expr
    for expr in "$@"; do
        sed -i "$expr" "$file"
    done
    retry 10 kubectl_admin apply -f "$file"
}

apply_text() { retry 10 kubectl_admin apply -f -; }

# The API server reaches kubelets as kube-apiserver-kubelet-client.
apply_text <<YAML
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: magnum:apiserver-kubelet-client}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:kubelet-api-admin}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: kube-apiserver-kubelet-client}
YAML

# kube-proxy as a DaemonSet reaching the API through its real address.
apply_text <<YAML
apiVersion: v1
kind: ServiceAccount
metadata: {name: kube-proxy, namespace: kube-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: magnum:kube-proxy}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:node-proxier}
subjects:
- {kind: ServiceAccount, name: kube-proxy, namespace: kube-system}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: kube-proxy, namespace: kube-system, labels: {k8s-app: kube-proxy}}
spec:
  selector: {matchLabels: {k8s-app: kube-proxy}}
  template:
    metadata: {labels: {k8s-app: kube-proxy}}
    spec:
      hostNetwork: true
      priorityClassName: system-node-critical
      serviceAccountName: kube-proxy
      tolerations: [{operator: Exists}]
      containers:
      - name: kube-proxy
        image: ${HYPERKUBE_PREFIX:-registry.k8s.io/}kube-proxy:${KUBE_TAG}
        command: [kube-proxy, --kubeconfig=/etc/kubernetes/kube-proxy.conf,
                  --cluster-cidr=${PODS_NETWORK_CIDR}, --hostname-override=\$(NODE_NAME)]
        env:
        - name: NODE_NAME
          valueFrom: {fieldRef: {fieldPath: spec.nodeName}}
        securityContext: {privileged: true}
        volumeMounts:
        - {name: kubernetes, mountPath: /etc/kubernetes, readOnly: true}
        - {name: modules, mountPath: /lib/modules, readOnly: true}
      volumes:
      - name: kubernetes
        hostPath: {path: /etc/kubernetes}
      - name: modules
        hostPath: {path: /lib/modules}
YAML

case "${NETWORK_DRIVER:-flannel}" in
    flannel)
        apply_url "https://github.com/flannel-io/flannel/releases/download/${FLANNEL_TAG}/kube-flannel.yml" \
            "s#10.244.0.0/16#${PODS_NETWORK_CIDR}#" \
            "s#\"Type\": \"vxlan\"#\"Type\": \"${FLANNEL_BACKEND:-vxlan}\"#"
        ;;
    calico)
        apply_url "https://raw.githubusercontent.com/projectcalico/calico/${CALICO_TAG}/manifests/calico.yaml" \
            "s@# - name: CALICO_IPV4POOL_CIDR@- name: CALICO_IPV4POOL_CIDR@" \
            "s@#   value: \"192.168.0.0/16\"@  value: \"${PODS_NETWORK_CIDR}\"@" \
            "/name: CALICO_IPV4POOL_IPIP/{n;s/value: .*/value: \"${CALICO_IPV4POOL_IPIP:-Off}\"/}"
        ;;
esac

apply_url "https://raw.githubusercontent.com/coredns/deployment/master/kubernetes/coredns.yaml.sed" \
    "s/CLUSTER_DOMAIN/${DNS_CLUSTER_DOMAIN}/g" "s/REVERSE_CIDRS/in-addr.arpa ip6.arpa/g" \
    "s/UPSTREAMNAMESERVER/\/etc\/resolv.conf/g" "s/CLUSTER_DNS_IP/${DNS_SERVICE_IP}/g" \
    "s/STUBDOMAINS//g" "s#coredns/coredns:[0-9.]*#coredns/coredns:${COREDNS_TAG}#g"

if is_true "${CLOUD_PROVIDER_ENABLED:-false}"; then
    cloud_config=$(mktemp)
    {
        echo "[Global]"
        echo "auth-url=${AUTH_URL}"
        echo "user-id=${TRUSTEE_USER_ID}"
        echo "password=${TRUSTEE_PASSWORD}"
        echo "trust-id=${TRUST_ID}"
        echo "region=${REGION_NAME}"
        [[ -s /etc/magnum/openstack-ca.pem ]] && echo "ca-file=/etc/kubernetes/openstack-ca.pem"
        echo "[LoadBalancer]"
        echo "use-octavia=${OCTAVIA_ENABLED:-false}"
        echo "lb-provider=${OCTAVIA_PROVIDER:-amphora}"
        echo "floating-network-id=${EXTERNAL_NETWORK_ID}"
        echo "[BlockStorage]"
        echo "bs-version=v3"
    } > "$cloud_config"
    kubectl_admin -n kube-system create secret generic cloud-config \
        --from-file=cloud.conf="$cloud_config" --dry-run=client -o yaml | apply_text
    rm -f "$cloud_config"
    for manifest in cloud-controller-manager-roles.yaml cloud-controller-manager-role-bindings.yaml \
            openstack-cloud-controller-manager-ds.yaml; do
        apply_url "$CPO/${CLOUD_PROVIDER_TAG}/manifests/controller-manager/${manifest}" \
            "s#openstack-cloud-controller-manager:[v0-9.a-z-]*#openstack-cloud-controller-manager:${CLOUD_PROVIDER_TAG}#"
    done
    if is_true "${CINDER_CSI_ENABLED:-true}" && [[ "${VOLUME_DRIVER:-}" == "cinder" ]]; then
        for manifest in cinder-csi-controllerplugin-rbac.yaml cinder-csi-controllerplugin.yaml \
                cinder-csi-nodeplugin-rbac.yaml cinder-csi-nodeplugin.yaml csi-cinder-driver.yaml; do
            apply_url "$CPO/${CINDER_CSI_PLUGIN_TAG}/manifests/cinder-csi-plugin/${manifest}" \
                "s#cinder-csi-plugin:[v0-9.a-z-]*#cinder-csi-plugin:${CINDER_CSI_PLUGIN_TAG}#"
        done
    fi
fi

if is_true "${METRICS_SERVER_ENABLED:-true}"; then
    apply_url "https://github.com/kubernetes-sigs/metrics-server/releases/download/${METRICS_SERVER_VERSION}/components.yaml"
fi

case "${INGRESS_CONTROLLER:-}" in
    nginx)
        apply_url "https://raw.githubusercontent.com/kubernetes/ingress-nginx/controller-${NGINX_INGRESS_CONTROLLER_TAG}/deploy/static/provider/cloud/deploy.yaml"
        ;;
    octavia)
        apply_url "$CPO/${OCTAVIA_INGRESS_CONTROLLER_TAG}/manifests/ingress-controller/serviceaccount.yaml"
        apply_url "$CPO/${OCTAVIA_INGRESS_CONTROLLER_TAG}/manifests/ingress-controller/deployment.yaml" \
            "s#octavia-ingress-controller:[v0-9.a-z-]*#octavia-ingress-controller:${OCTAVIA_INGRESS_CONTROLLER_TAG}#"
        ;;
    traefik)
        apply_url "https://raw.githubusercontent.com/traefik/traefik/${TRAEFIK_INGRESS_CONTROLLER_TAG}/docs/content/reference/dynamic-configuration/kubernetes-crd-rbac.yml"
        ;;
esac

if is_true "${AUTO_SCALING_ENABLED:-false}"; then
    apply_text <<YAML
apiVersion: v1
kind: ServiceAccount
metadata: {name: cluster-autoscaler, namespace: kube-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: magnum:cluster-autoscaler}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects:
- {kind: ServiceAccount, name: cluster-autoscaler, namespace: kube-system}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: cluster-autoscaler, namespace: kube-system}
spec:
  selector: {matchLabels: {app: cluster-autoscaler}}
  template:
    metadata: {labels: {app: cluster-autoscaler}}
    spec:
      serviceAccountName: cluster-autoscaler
      nodeSelector: {node-role.kubernetes.io/control-plane: ""}
      tolerations: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]
      containers:
      - name: cluster-autoscaler
        image: registry.k8s.io/autoscaling/cluster-autoscaler:${AUTOSCALER_TAG}
        command: [./cluster-autoscaler, --cloud-provider=magnum,
                  --cloud-config=/config/cloud.conf, --cluster-name=${CLUSTER_UUID},
                  "--nodes=${MIN_NODE_COUNT}:${MAX_NODE_COUNT}:${NODEGROUP_NAME}"]
        volumeMounts: [{name: config, mountPath: /config, readOnly: true}]
      volumes:
      - name: config
        secret: {secretName: cloud-config}
YAML
fi

if is_true "${AUTO_HEALING_ENABLED:-false}"; then
    case "${AUTO_HEALING_CONTROLLER:-draino}" in
        magnum-auto-healer)
            apply_url "$CPO/${MAGNUM_AUTO_HEALER_TAG}/manifests/magnum-auto-healer/magnum-auto-healer.yaml" \
                "s#11111111-1111-1111-1111-111111111111#${CLUSTER_UUID}#g" \
                "s#magnum-auto-healer:[v0-9.a-z-]*#magnum-auto-healer:${MAGNUM_AUTO_HEALER_TAG}#"
            ;;
        draino)
            apply_url "https://raw.githubusercontent.com/planetlabs/draino/master/manifest.yml" \
                "s#planetlabs/draino:[0-9a-z]*#planetlabs/draino:${DRAINO_TAG}#"
            ;;
    esac
fi

if is_true "${KEYSTONE_AUTH_ENABLED:-true}" && [[ -n "${KEYSTONE_AUTH_DEFAULT_POLICY:-}" ]]; then
    echo "$KEYSTONE_AUTH_DEFAULT_POLICY" | base64 -d > "$ADDONS_DIR/keystone-policy.json"
    kubectl_admin -n kube-system create configmap k8s-keystone-auth-policy \
        --from-file=policies="$ADDONS_DIR/keystone-policy.json" --dry-run=client -o yaml | apply_text
    apply_url "$CPO/${K8S_KEYSTONE_AUTH_TAG}/examples/webhook/keystone-deployment.yaml" \
        "s#k8s-keystone-auth:[v0-9.a-z-]*#k8s-keystone-auth:${K8S_KEYSTONE_AUTH_TAG}#" \
        "s#https://keystone.example.com/v3#${AUTH_URL}#"
fi

if is_true "${NPD_ENABLED:-true}"; then
    apply_url "https://raw.githubusercontent.com/kubernetes/node-problem-detector/${NODE_PROBLEM_DETECTOR_TAG}/deployment/node-problem-detector.yaml"
fi

if is_true "${KUBE_DASHBOARD_ENABLED:-false}"; then
    apply_url "https://raw.githubusercontent.com/kubernetes/dashboard/${KUBE_DASHBOARD_VERSION}/aio/deploy/recommended.yaml"
fi

if [[ -n "${POST_INSTALL_MANIFEST_URL:-}" ]]; then
    apply_url "$POST_INSTALL_MANIFEST_URL"
fi

touch /var/lib/magnum/addons.done
