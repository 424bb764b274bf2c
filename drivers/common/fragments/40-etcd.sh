#!/bin/bash
# etcd on masters, its members named by the masters' order. A master that replaces an old
# one (upgrade, CA rotation) keeps its data when etcd lives on a volume; without data it
# rejoins the running cluster as a fresh member.
# Sourcing the file only defines its functions (the unit and its settings).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# etcd_env <name> <initial cluster> <state>: the EnvironmentFile of etcd.service (names
# that etcd itself does not read as flags).
etcd_env() {
    systemd_env MAGNUM_ETCD_NAME "$1"
    systemd_env MAGNUM_ETCD_NODE_IP "$NODE_IP"
    systemd_env MAGNUM_ETCD_INITIAL_CLUSTER "$2"
    systemd_env MAGNUM_ETCD_INITIAL_CLUSTER_STATE "$3"
    systemd_env MAGNUM_ETCD_INITIAL_CLUSTER_TOKEN "$CLUSTER_UUID"
}

# The unit is fixed text: this node's values come from etcd.env.
etcd_unit() {
    cat <<'UNIT'
[Unit]
Description=etcd of the Kubernetes control plane
After=network-online.target

[Service]
EnvironmentFile=/etc/kubernetes/etcd.env
ExecStart=/usr/local/bin/etcd --name ${MAGNUM_ETCD_NAME} --data-dir /var/lib/etcd \
  --listen-client-urls https://${MAGNUM_ETCD_NODE_IP}:2379,https://127.0.0.1:2379 \
  --advertise-client-urls https://${MAGNUM_ETCD_NODE_IP}:2379 \
  --listen-peer-urls https://${MAGNUM_ETCD_NODE_IP}:2380 \
  --initial-advertise-peer-urls https://${MAGNUM_ETCD_NODE_IP}:2380 \
  --initial-cluster ${MAGNUM_ETCD_INITIAL_CLUSTER} \
  --initial-cluster-state ${MAGNUM_ETCD_INITIAL_CLUSTER_STATE} \
  --initial-cluster-token ${MAGNUM_ETCD_INITIAL_CLUSTER_TOKEN} \
  --client-cert-auth --trusted-ca-file /etc/kubernetes/pki/ca.crt \
  --cert-file /etc/kubernetes/pki/etcd.crt --key-file /etc/kubernetes/pki/etcd.key \
  --peer-client-cert-auth --peer-trusted-ca-file /etc/kubernetes/pki/ca.crt \
  --peer-cert-file /etc/kubernetes/pki/etcd.crt --peer-key-file /etc/kubernetes/pki/etcd.key
Restart=always
RestartSec=5

[Install]
WantedBy=multi-user.target
UNIT
}

# etcdctl_peers <args...>: etcdctl against the other masters (MASTER_IPS but this node).
etcdctl_peers() {
    local endpoints="" ip masters
    IFS=, read -r -a masters <<< "$MASTER_IPS"
    for ip in "${masters[@]}"; do
        [[ "$ip" == "$NODE_IP" ]] || endpoints="${endpoints:+$endpoints,}https://${ip}:2379"
    done
    [[ -n "$endpoints" ]] || return 1
    "$BIN_DIR/etcdctl" --endpoints "$endpoints" --cacert "$PKI_DIR/ca.crt" \
        --cert "$PKI_DIR/etcd.crt" --key "$PKI_DIR/etcd.key" "$@"
}

main() {
    is_master || return 0

    local release="etcd-${ETCD_TAG}-linux-${ARCH}"
    download "https://github.com/etcd-io/etcd/releases/download/${ETCD_TAG}/${release}.tar.gz" \
        /tmp/etcd.tar.gz
    tar -C /tmp -xzf /tmp/etcd.tar.gz
    install -m 755 "/tmp/${release}/etcd" "/tmp/${release}/etcdctl" "$BIN_DIR/"

    local masters name initial="" i state stale
    IFS=, read -r -a masters <<< "$MASTER_IPS"
    name="etcd-${NODE_INDEX}"
    for i in "${!masters[@]}"; do
        initial="${initial:+$initial,}etcd-${i}=https://${masters[$i]}:2380"
    done

    state=new
    mkdir -p /var/lib/etcd
    if [[ ! -d /var/lib/etcd/member ]] && etcdctl_peers endpoint health >/dev/null 2>&1; then
        # Replacement of a member whose data is gone: drop the stale entry, join as new.
        stale=$(etcdctl_peers member list -w simple | awk -F', ' -v n="$name" '$3 == n {print $1}')
        if [[ -n "$stale" ]]; then
            etcdctl_peers member remove "$stale"
        fi
        etcdctl_peers member add "$name" --peer-urls "https://${NODE_IP}:2380"
        state=existing
    fi

    etcd_env "$name" "$initial" "$state" > /etc/kubernetes/etcd.env
    etcd_unit > /etc/systemd/system/etcd.service
    systemctl daemon-reload
    systemctl enable --now etcd
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    main "$@"
fi
