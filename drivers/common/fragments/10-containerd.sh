#!/bin/bash
# The container runtime: containerd from the image, the distribution or the release tarball,
# configured for the kubelet (systemd cgroups unless asked otherwise), plus the CNI plugins.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

readonly CNI_PLUGINS_VERSION=v1.6.0

case "${CONTAINERD_SOURCE:-image}" in
    tarball)
        url=${CONTAINERD_TARBALL_URL:-https://github.com/containerd/containerd/releases/download/v${CONTAINERD_VERSION}/containerd-${CONTAINERD_VERSION}-linux-${ARCH}.tar.gz}
        download "$url" /tmp/containerd.tar.gz "${CONTAINERD_TARBALL_SHA256:-}"
        tar -C /usr/local -xzf /tmp/containerd.tar.gz
        download "https://raw.githubusercontent.com/containerd/containerd/v${CONTAINERD_VERSION}/containerd.service" \
            /etc/systemd/system/containerd.service
        ;;
    package)
        command -v containerd >/dev/null || { apt-get update && apt-get install -y containerd; }
        ;;
    image) ;;
    *) log "unknown containerd source ${CONTAINERD_SOURCE}"; exit 1 ;;
esac

systemd_cgroup=true
[[ "${CGROUP_DRIVER:-systemd}" == "cgroupfs" ]] && systemd_cgroup=false
mkdir -p /etc/containerd
containerd config default > /etc/containerd/config.toml
sed -i "s/SystemdCgroup = .*/SystemdCgroup = ${systemd_cgroup}/" /etc/containerd/config.toml
sandbox=$(sed_escape "$(json_quote "$(image registry.k8s.io/ pause 3.10)")")
sed -i "s#sandbox_image = .*#sandbox_image = ${sandbox}#" /etc/containerd/config.toml
if [[ -n "${INSECURE_REGISTRY_URL:-}" ]]; then
    # The registry's host[:port] names a directory: refuse anything that could leave it.
    [[ "$INSECURE_REGISTRY_URL" =~ ^[A-Za-z0-9.:\[\]-]+$ && "$INSECURE_REGISTRY_URL" != *..* ]] || {
        log "refusing insecure registry ${INSECURE_REGISTRY_URL@Q}"
        exit 1
    }
    registry="http://${INSECURE_REGISTRY_URL}"
    mkdir -p "/etc/containerd/certs.d/${INSECURE_REGISTRY_URL}"
    cat > "/etc/containerd/certs.d/${INSECURE_REGISTRY_URL}/hosts.toml" <<HOSTS
server = $(json_quote "$registry")
[host.$(json_quote "$registry")]
  capabilities = ["pull", "resolve"]
  skip_verify = true
HOSTS
    sed -i 's#config_path = ""#config_path = "/etc/containerd/certs.d"#' /etc/containerd/config.toml
fi
if [[ -s /etc/magnum/proxy.env ]]; then
    mkdir -p /etc/systemd/system/containerd.service.d
    cat > /etc/systemd/system/containerd.service.d/proxy.conf <<'PROXY'
[Service]
EnvironmentFile=/etc/magnum/proxy.env
PROXY
fi

mkdir -p /opt/cni/bin /etc/cni/net.d
download "https://github.com/containernetworking/plugins/releases/download/${CNI_PLUGINS_VERSION}/cni-plugins-linux-${ARCH}-${CNI_PLUGINS_VERSION}.tgz" \
    /tmp/cni-plugins.tgz
tar -C /opt/cni/bin -xzf /tmp/cni-plugins.tgz

systemctl daemon-reload
systemctl enable containerd
systemctl restart containerd
