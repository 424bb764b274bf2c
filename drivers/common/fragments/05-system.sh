#!/bin/bash
# Host preparation: proxies, CA bundle, SSH key, kernel settings, SELinux, data volumes.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

hostnamectl set-hostname "$NODE_NAME" || echo "$NODE_NAME" > /etc/hostname

# The proxies for login shells (/etc/profile.d, read by sh) and for services
# (proxy.env, an EnvironmentFile= of the units that fetch images).
if [[ -n "${HTTP_PROXY:-}${HTTPS_PROXY:-}" ]]; then
    proxy_profile > /etc/profile.d/magnum-proxy.sh
    (umask 077 && proxy_env > /etc/magnum/proxy.env)
fi

if [[ -n "${OPENSTACK_CA:-}" ]]; then
    echo "$OPENSTACK_CA" | base64 -d > /etc/magnum/openstack-ca.pem
fi

if [[ -n "${SSH_PUBLIC_KEY:-}" && -n "${LOGIN_USER:-}" ]] && id "$LOGIN_USER" >/dev/null 2>&1; then
    home=$(getent passwd "$LOGIN_USER" | cut -d: -f6)
    install -d -m 700 -o "$LOGIN_USER" "$home/.ssh"
    grep -qxF "$SSH_PUBLIC_KEY" "$home/.ssh/authorized_keys" 2>/dev/null \
        || echo "$SSH_PUBLIC_KEY" >> "$home/.ssh/authorized_keys"
    chown "$LOGIN_USER" "$home/.ssh/authorized_keys"
    chmod 600 "$home/.ssh/authorized_keys"
fi

swapoff -a
sed -i '/\sswap\s/s/^/#/' /etc/fstab

cat > /etc/modules-load.d/kubernetes.conf <<MODULES
overlay
br_netfilter
MODULES
modprobe overlay
modprobe br_netfilter
cat > /etc/sysctl.d/90-kubernetes.conf <<SYSCTL
net.bridge.bridge-nf-call-iptables = 1
net.bridge.bridge-nf-call-ip6tables = 1
net.ipv4.ip_forward = 1
fs.inotify.max_user_instances = 8192
SYSCTL
sysctl --system >/dev/null

if is_true "${SELINUX_MANAGED:-false}" && command -v setenforce >/dev/null; then
    case "${SELINUX_MODE:-enforcing}" in
        permissive) mode=permissive ;;
        disabled) mode=disabled ;;
        *) mode=enforcing ;;
    esac
    if [[ "$mode" == enforcing ]]; then setenforce 1 || true; else setenforce 0 || true; fi
    sed -i "s/^SELINUX=.*/SELINUX=${mode}/" /etc/selinux/config || true
fi

# mount_volume <cinder volume id> <mount point>: format once, mount by device id.
mount_volume() {
    local volume=$1 target=$2 device
    device="/dev/disk/by-id/virtio-${volume:0:20}"
    retry 60 test -b "$device"
    blkid "$device" >/dev/null 2>&1 || mkfs.xfs -q "$device"
    mkdir -p "$target"
    grep -q " $target " /etc/fstab || echo "$device $target xfs defaults,nofail 0 2" >> /etc/fstab
    mountpoint -q "$target" || mount "$target"
}

[[ -n "${ETCD_VOLUME_ID:-}" ]] && mount_volume "$ETCD_VOLUME_ID" /var/lib/etcd
[[ -n "${DOCKER_VOLUME_ID:-}" ]] && mount_volume "$DOCKER_VOLUME_ID" /var/lib/containerd
exit 0
