#!/bin/bash
# Cluster add-ons, applied once by the first master: kube-proxy, the pod network (flannel or
# calico), CoreDNS, the OpenStack cloud provider, Cinder CSI, metrics-server, ingress,
# autoscaler, auto-healing, Keystone auth and what else the labels ask for.
# Sourcing the file only defines its functions (the manifests are functions of the settings).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly CPO=https://raw.githubusercontent.com/kubernetes/cloud-provider-openstack
readonly METRICS_SERVER_CHARTS=https://kubernetes-sigs.github.io/metrics-server/

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

# apply_text: apply the manifest on stdin, kept in a file so that every retry sees it.
apply_text() {
    local file
    file=$(mktemp "$ADDONS_DIR/manifest.XXXXXX")
    cat > "$file"
    retry 10 kubectl_admin apply -f "$file"
    rm -f "$file"
}

# helm_admin <args...>: the helm client as the cluster admin, its state under ADDONS_DIR
# (the bootstrap service runs without a home directory).
helm_admin() {
    HELM_CACHE_HOME="$ADDONS_DIR/helm-state/cache" HELM_CONFIG_HOME="$ADDONS_DIR/helm-state/config" \
        HELM_DATA_HOME="$ADDONS_DIR/helm-state/data" \
        "$BIN_DIR/helm" --kubeconfig "$KUBE_DIR/admin.conf" "$@"
}

# The helm client tarball the labels ask for: helm_client_url, else the release of
# helm_client_tag from get.helm.sh.
helm_client_url() {
    echo "${HELM_CLIENT_URL:-https://get.helm.sh/helm-${HELM_CLIENT_TAG}-linux-${ARCH}.tar.gz}"
}

# install_helm: the helm client, checked against helm_client_sha256 (the driver pins the
# default release's); a get.helm.sh release without one is checked against the checksum
# published next to it, an operator's own URL without one is taken as it is.
install_helm() {
    local url sum=${HELM_CLIENT_SHA256:-} tarball="$ADDONS_DIR/helm.tar.gz" unpacked
    url=$(helm_client_url)
    if [[ -z "$sum" && "$url" == https://get.helm.sh/* ]]; then
        sum=$(retry 10 curl --silent --show-error --fail --location "$url.sha256sum")
        sum=${sum%% *}
    elif [[ -z "$sum" ]]; then
        log "no helm_client_sha256 given: $url is not checked"
    fi
    download "$url" "$tarball" "$sum"
    unpacked=$(mktemp -d)
    tar -xzf "$tarball" -C "$unpacked"
    install -m 755 "$unpacked/linux-${ARCH}/helm" "$BIN_DIR/helm"
    rm -rf "$tarball" "$unpacked"
}

# install_metrics_server: metrics-server from its Helm chart at metrics_server_chart_tag;
# the chart version fixes the metrics-server release (chart 3.12.2 ships v0.7.2).
install_metrics_server() {
    local args=(upgrade --install metrics-server metrics-server --repo "$METRICS_SERVER_CHARTS"
                --version "${METRICS_SERVER_CHART_TAG#v}" --namespace kube-system)
    if [[ -n "${CONTAINER_INFRA_PREFIX:-}" ]]; then
        args+=(--set "image.repository=${CONTAINER_INFRA_PREFIX}metrics-server")
    fi
    retry 10 helm_admin "${args[@]}"
}

# traefik_manifest: Traefik as the cluster's ingress controller (IngressClass "traefik",
# the default class), a DaemonSet on the nodes labelled role=<ingress_controller_role> or
# in a node group of that role, answering on their ports 80 and 443.
traefik_manifest() {
    local role=${INGRESS_CONTROLLER_ROLE:-ingress}
    cat <<YAML
apiVersion: v1
kind: ServiceAccount
metadata: {name: traefik-ingress-controller, namespace: kube-system}
---
# Read-only: routes come from Ingresses, backends from Services and their endpoints
# (Endpoints up to Traefik 3.0, EndpointSlices and Nodes from 3.1), certificates from the
# Secrets the Ingresses name.
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: magnum:traefik-ingress-controller}
rules:
- apiGroups: [networking.k8s.io]
  resources: [ingresses, ingressclasses]
  verbs: [get, list, watch]
- apiGroups: [""]
  resources: [services, endpoints, secrets, nodes]
  verbs: [get, list, watch]
- apiGroups: [discovery.k8s.io]
  resources: [endpointslices]
  verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: magnum:traefik-ingress-controller}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: magnum:traefik-ingress-controller}
subjects:
- {kind: ServiceAccount, name: traefik-ingress-controller, namespace: kube-system}
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: traefik
  annotations: {ingressclass.kubernetes.io/is-default-class: "true"}
spec: {controller: traefik.io/ingress-controller}
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: traefik-ingress-controller
  namespace: kube-system
  labels: {k8s-app: traefik-ingress-controller}
spec:
  selector: {matchLabels: {k8s-app: traefik-ingress-controller}}
  template:
    metadata: {labels: {k8s-app: traefik-ingress-controller}}
    spec:
      serviceAccountName: traefik-ingress-controller
      terminationGracePeriodSeconds: 60
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions: [{key: role, operator: In, values: [$(json_quote "$role")]}]
            - matchExpressions: [{key: magnum.openstack.org/role, operator: In,
                                  values: [$(json_quote "$role")]}]
      securityContext:
        runAsNonRoot: true
        runAsUser: 65532
        runAsGroup: 65532
        seccompProfile: {type: RuntimeDefault}
      containers:
      - name: traefik
        image: $(json_quote "$(image docker.io/library/ traefik "${TRAEFIK_INGRESS_CONTROLLER_TAG}")")
        args:
        - --providers.kubernetesingress=true
        - --entryPoints.web.address=:8000
        - --entryPoints.websecure.address=:8443
        - --entryPoints.websecure.http.tls=true
        - --entryPoints.traefik.address=:9000
        - --ping=true
        - --global.checkNewVersion=false
        - --global.sendAnonymousUsage=false
        ports:
        - {name: web, containerPort: 8000, hostPort: 80, protocol: TCP}
        - {name: websecure, containerPort: 8443, hostPort: 443, protocol: TCP}
        readinessProbe:
          httpGet: {path: /ping, port: 9000}
          periodSeconds: 10
        livenessProbe:
          httpGet: {path: /ping, port: 9000}
          initialDelaySeconds: 10
          periodSeconds: 10
        securityContext:
          allowPrivilegeEscalation: false
          readOnlyRootFilesystem: true
          capabilities: {drop: [ALL]}
        volumeMounts: [{name: tmp, mountPath: /tmp}]
      volumes:
      - {name: tmp, emptyDir: {}}
YAML
}

# autoscaler_manifest: cluster-autoscaler (Magnum provider) for the default worker group,
# with only the rights it uses: reading the workloads and volumes that decide whether a
# node can go, evicting pods, updating nodes, and its own status, leases and events.
autoscaler_manifest() {
    cat <<YAML
apiVersion: v1
kind: ServiceAccount
metadata: {name: cluster-autoscaler, namespace: kube-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: magnum:cluster-autoscaler}
rules:
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
- apiGroups: [""]
  resources: [pods/eviction]
  verbs: [create]
- apiGroups: [""]
  resources: [pods/status]
  verbs: [update]
- apiGroups: [""]
  resources: [nodes]
  verbs: [get, list, watch, update]
- apiGroups: [""]
  resources: [namespaces, pods, services, replicationcontrollers, persistentvolumeclaims,
              persistentvolumes]
  verbs: [get, list, watch]
- apiGroups: [apps]
  resources: [daemonsets, replicasets, statefulsets]
  verbs: [get, list, watch]
- apiGroups: [batch]
  resources: [jobs, cronjobs]
  verbs: [get, list, watch]
- apiGroups: [policy]
  resources: [poddisruptionbudgets]
  verbs: [get, list, watch]
- apiGroups: [storage.k8s.io]
  resources: [storageclasses, csinodes, csidrivers, csistoragecapacities, volumeattachments]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: magnum:cluster-autoscaler}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: magnum:cluster-autoscaler}
subjects:
- {kind: ServiceAccount, name: cluster-autoscaler, namespace: kube-system}
---
# In kube-system only: its status configmap and its leader-election lease.
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: magnum:cluster-autoscaler, namespace: kube-system}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [create, list, watch]
- apiGroups: [""]
  resources: [configmaps]
  resourceNames: [cluster-autoscaler-status, cluster-autoscaler-priority-expander]
  verbs: [get, update, delete, watch]
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [create]
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  resourceNames: [cluster-autoscaler]
  verbs: [get, update]
- apiGroups: [""]
  resources: [endpoints]
  resourceNames: [cluster-autoscaler]
  verbs: [get, update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: magnum:cluster-autoscaler, namespace: kube-system}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: magnum:cluster-autoscaler}
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
        image: $(json_quote "$(image registry.k8s.io/autoscaling/ cluster-autoscaler "${AUTOSCALER_TAG}")")
        command: [./cluster-autoscaler, --cloud-provider=magnum,
                  --cloud-config=/config/cloud.conf, $(json_quote "--cluster-name=${CLUSTER_UUID}"),
                  $(json_quote "--nodes=${AUTOSCALER_NODES}")]
        volumeMounts: [{name: config, mountPath: /config, readOnly: true}]
      volumes:
      - name: config
        secret: {secretName: cloud-config}
YAML
}

# cloud_config: the cloud provider's configuration (gcfg, every value double-quoted).
cloud_config() {
    echo "[Global]"
    echo "auth-url=$(json_quote "$AUTH_URL")"
    echo "user-id=$(json_quote "$TRUSTEE_USER_ID")"
    echo "password=$(json_quote "$TRUSTEE_PASSWORD")"
    echo "trust-id=$(json_quote "$TRUST_ID")"
    echo "region=$(json_quote "$REGION_NAME")"
    if [[ -s /etc/magnum/openstack-ca.pem ]]; then
        echo "ca-file=/etc/kubernetes/openstack-ca.pem"
    fi
    echo "[LoadBalancer]"
    echo "use-octavia=$(json_quote "${OCTAVIA_ENABLED:-false}")"
    echo "lb-provider=$(json_quote "${OCTAVIA_PROVIDER:-amphora}")"
    echo "floating-network-id=$(json_quote "$EXTERNAL_NETWORK_ID")"
    echo "[BlockStorage]"
    echo "bs-version=v3"
}

# cloud_config_secret: the trustee's OpenStack credentials (secret kube-system/cloud-config)
# that the cloud provider, Cinder CSI and the cluster autoscaler read.
cloud_config_secret() {
    local cloud_config
    cloud_config=$(mktemp)
    cloud_config > "$cloud_config"
    kubectl_admin -n kube-system create secret generic cloud-config \
        --from-file=cloud.conf="$cloud_config" --dry-run=client -o yaml | apply_text
    rm -f "$cloud_config"
}

main() {
    is_master || return 0
    [[ "${NODE_INDEX:-0}" == "0" ]] || return 0
    [[ -f /var/lib/magnum/addons.done ]] && return 0
    mkdir -p "$ADDONS_DIR"
    local manifest

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
        image: $(json_quote "${HYPERKUBE_PREFIX:-registry.k8s.io/}kube-proxy:${KUBE_TAG}")
        command: [kube-proxy, --kubeconfig=/etc/kubernetes/kube-proxy.conf,
                  $(json_quote "--cluster-cidr=${PODS_NETWORK_CIDR}"),
                  --hostname-override=\$(NODE_NAME)]
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
                "s#10.244.0.0/16#$(sed_escape "$PODS_NETWORK_CIDR")#" \
                "s#\"Type\": \"vxlan\"#\"Type\": \"$(sed_escape "${FLANNEL_BACKEND:-vxlan}")\"#"
            ;;
        calico)
            apply_url "https://raw.githubusercontent.com/projectcalico/calico/${CALICO_TAG}/manifests/calico.yaml" \
                "s@# - name: CALICO_IPV4POOL_CIDR@- name: CALICO_IPV4POOL_CIDR@" \
                "s@#   value: \"192.168.0.0/16\"@  value: \"$(sed_escape "$PODS_NETWORK_CIDR")\"@" \
                "/name: CALICO_IPV4POOL_IPIP/{n;s/value: .*/value: \"$(sed_escape "${CALICO_IPV4POOL_IPIP:-Off}")\"/}"
            ;;
    esac

    apply_url "https://raw.githubusercontent.com/coredns/deployment/master/kubernetes/coredns.yaml.sed" \
        "s/CLUSTER_DOMAIN/$(sed_escape "$DNS_CLUSTER_DOMAIN")/g" "s/REVERSE_CIDRS/in-addr.arpa ip6.arpa/g" \
        "s/UPSTREAMNAMESERVER/\/etc\/resolv.conf/g" "s/CLUSTER_DNS_IP/$(sed_escape "$DNS_SERVICE_IP")/g" \
        "s/STUBDOMAINS//g" "s#coredns/coredns:[0-9.]*#coredns/coredns:$(sed_escape "$COREDNS_TAG")#g"

    if is_true "${CLOUD_PROVIDER_ENABLED:-false}" || is_true "${AUTO_SCALING_ENABLED:-false}"; then
        cloud_config_secret
    fi
    if is_true "${CLOUD_PROVIDER_ENABLED:-false}"; then
        for manifest in cloud-controller-manager-roles.yaml cloud-controller-manager-role-bindings.yaml \
                openstack-cloud-controller-manager-ds.yaml; do
            apply_url "$CPO/${CLOUD_PROVIDER_TAG}/manifests/controller-manager/${manifest}" \
                "s#openstack-cloud-controller-manager:[v0-9.a-z-]*#openstack-cloud-controller-manager:$(sed_escape "$CLOUD_PROVIDER_TAG")#"
        done
        if is_true "${CINDER_CSI_ENABLED:-true}" && [[ "${VOLUME_DRIVER:-}" == "cinder" ]]; then
            for manifest in cinder-csi-controllerplugin-rbac.yaml cinder-csi-controllerplugin.yaml \
                    cinder-csi-nodeplugin-rbac.yaml cinder-csi-nodeplugin.yaml csi-cinder-driver.yaml; do
                apply_url "$CPO/${CINDER_CSI_PLUGIN_TAG}/manifests/cinder-csi-plugin/${manifest}" \
                    "s#cinder-csi-plugin:[v0-9.a-z-]*#cinder-csi-plugin:$(sed_escape "$CINDER_CSI_PLUGIN_TAG")#"
            done
        fi
    fi

    if is_true "${METRICS_SERVER_ENABLED:-true}"; then
        install_helm
        install_metrics_server
    fi

    case "${INGRESS_CONTROLLER:-}" in
        nginx)
            apply_url "https://raw.githubusercontent.com/kubernetes/ingress-nginx/controller-${NGINX_INGRESS_CONTROLLER_TAG}/deploy/static/provider/cloud/deploy.yaml"
            ;;
        octavia)
            apply_url "$CPO/${OCTAVIA_INGRESS_CONTROLLER_TAG}/manifests/ingress-controller/serviceaccount.yaml"
            apply_url "$CPO/${OCTAVIA_INGRESS_CONTROLLER_TAG}/manifests/ingress-controller/deployment.yaml" \
                "s#octavia-ingress-controller:[v0-9.a-z-]*#octavia-ingress-controller:$(sed_escape "$OCTAVIA_INGRESS_CONTROLLER_TAG")#"
            ;;
        traefik)
            traefik_manifest | apply_text
            ;;
    esac

    if is_true "${AUTO_SCALING_ENABLED:-false}"; then
        autoscaler_manifest | apply_text
    fi

    if is_true "${AUTO_HEALING_ENABLED:-false}"; then
        case "${AUTO_HEALING_CONTROLLER:-draino}" in
            magnum-auto-healer)
                apply_url "$CPO/${MAGNUM_AUTO_HEALER_TAG}/manifests/magnum-auto-healer/magnum-auto-healer.yaml" \
                    "s#11111111-1111-1111-1111-111111111111#$(sed_escape "$CLUSTER_UUID")#g" \
                    "s#magnum-auto-healer:[v0-9.a-z-]*#magnum-auto-healer:$(sed_escape "$MAGNUM_AUTO_HEALER_TAG")#"
                ;;
            draino)
                apply_url "https://raw.githubusercontent.com/planetlabs/draino/master/manifest.yml" \
                    "s#planetlabs/draino:[0-9a-z]*#planetlabs/draino:$(sed_escape "$DRAINO_TAG")#"
                ;;
        esac
    fi

    if is_true "${KEYSTONE_AUTH_ENABLED:-true}" && [[ -n "${KEYSTONE_AUTH_DEFAULT_POLICY:-}" ]]; then
        echo "$KEYSTONE_AUTH_DEFAULT_POLICY" | base64 -d > "$ADDONS_DIR/keystone-policy.json"
        kubectl_admin -n kube-system create configmap k8s-keystone-auth-policy \
            --from-file=policies="$ADDONS_DIR/keystone-policy.json" --dry-run=client -o yaml | apply_text
        apply_url "$CPO/${K8S_KEYSTONE_AUTH_TAG}/examples/webhook/keystone-deployment.yaml" \
            "s#k8s-keystone-auth:[v0-9.a-z-]*#k8s-keystone-auth:$(sed_escape "$K8S_KEYSTONE_AUTH_TAG")#" \
            "s#https://keystone.example.com/v3#$(sed_escape "$AUTH_URL")#"
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
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    main "$@"
fi
