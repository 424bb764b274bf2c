#!/bin/bash
# etcd on masters, its members named by the masters' order. A master that replaces an old
# one (upgrade, CA rotation) keeps its data when etcd lives on a volume; without data it
# rejoins the running cluster as a fresh member.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

is_master || exit 0

download "https://github.com/etcd-io/etcd/releases/download/${ETCD_TAG}/etcd-${ETCD_TAG}-linux-${ARCH}.tar.gz" \
    /tmp/etcd.tar.gz
tar -C /tmp -xzf /tmp/etcd.tar.gz
install -m 755 "/tmp/etcd-${ETCD_TAG}-linux-${ARCH}/etcd" "/tmp/etcd-${ETCD_TAG}-linux-${ARCH}/etcdctl" \
    "$BIN_DIR/"

IFS=, read -r -a masters <<< "$MASTER_IPS"
name="etcd-${NODE_INDEX}"
initial=""
for i in "${!masters[@]}"; do
    initial="${initial:+$initial,}etcd-${i}=https://${masters[$i]}:2380"
done

etcdctl_peers() {
    local endpoints=""
    for ip in "${masters[@]}"; do
        [[ "$ip" == "$NODE_IP" ]] || endpoints="${endpoints:+$endpoints,}https://${ip}:2379"
    done
    [[ -n "$endpoints" ]] || return 1
    "$BIN_DIR/etcdctl" --endpoints "$endpoints" --cacert "$PKI_DIR/ca.crt" \
        --cert "$PKI_DIR/etcd.crt" --key "$PKI_DIR/etcd.key" "$@"
}

state=new
mkdir -p /var/lib/etcd
if [[ ! -d /var/lib/etcd/member ]] && etcdctl_peers endpoint health >/dev/null 2>&1; then
    # Replacement of a member whose data is gone: drop the stale entry, join as new.
    stale=$(etcdctl_peers member list -w simple | awk -F', ' -v n="$name" '$3 == n {print $1}')
    [[ -n "$stale" ]] && etcdctl_peers member remove "$stale"
    etcdctl_peers member add "$name" --peer-urls "https://${NODE_IP}:2380"
    state=existing
fi

cat > /etc/systemd/system/etcd.service <<UNIT
[Unit]
Description=etcd of the Kubernetes control plane
After=network-online.target

[Service]
ExecStart=$BIN_DIR/etcd --name ${name} --data-dir /var/lib/etcd \\
  --listen-client-urls https://${NODE_IP}:2379,https://127.0.0.1:2379 \\
  --advertise-client-urls https://${NODE_IP}:2379 \\
  --listen-peer-urls https://${NODE_IP}:2380 \\
  --initial-advertise-peer-urls https://${NODE_IP}:2380 \\
  --initial-cluster ${initial} --initial-cluster-state ${state} \\
  --initial-cluster-token ${CLUSTER_UUID} \\
  --client-cert-auth --trusted-ca-file $PKI_DIR/ca.crt \\
  --cert-file $PKI_DIR/etcd.crt --key-file $PKI_DIR/etcd.key \\
  --peer-client-cert-auth --peer-trusted-ca-file $PKI_DIR/ca.crt \\
  --peer-cert-file $PKI_DIR/etcd.crt --peer-key-file $PKI_DIR/etcd.key
Restart=always
RestartSec=5

[Install]
WantedBy=multi-user.target
UNIT
systemctl daemon-reload
systemctl enable --now etcd
