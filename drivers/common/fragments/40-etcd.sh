#!/bin/bash
# etcd on masters, its members named by the masters' order. A master that replaces an old
# one (upgrade, CA rotation) keeps its data when etcd lives on a volume; without data it
# rejoins the running cluster as a fresh member. The only master of a cluster without an
# etcd volume has no peer to rejoin: before it is replaced, its handover timer uploads an
# encrypted snapshot when Magnum asks (drivers/heat/etcd_handover.py), and its replacement
# restores from it (ETCD_RESTORE_*).
# Sourcing the file only defines its functions (the unit and its settings); run with the
# argument "handover" it is what magnum-etcd-handover.service runs.
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

readonly HANDOVER_NAME_PREFIX=magnum-etcd-handover-
#: Length of a P-256 key's DER SubjectPublicKeyInfo: the first bytes of a sealed snapshot.
readonly PEER_KEY_BYTES=91

# lone_master: the only master, with etcd on its root disk.
lone_master() {
    local masters
    IFS=, read -r -a masters <<< "$MASTER_IPS"
    (( ${#masters[@]} == 1 )) && [[ -z "${ETCD_VOLUME_ID:-}" ]]
}

# glance_call <curl args...>: Glance's API as the cluster's trustee, with the trust.
glance_call() {
    local token
    token=$(trustee_token) || return 1
    [[ -n "$token" ]] || return 1
    # shellcheck disable=SC2046
    curl --silent --show-error --fail $(curl_ca_args) -H "X-Auth-Token: $token" "$@" || {
        forget_trustee_token
        return 1
    }
}

# ecdh_pass <private key PEM> <peer public key DER> <pass file>: the shared secret in hex.
ecdh_pass() {
    openssl pkeyutl -derive -inkey "$1" -peerkey "$2" -peerform DER | od -An -v -tx1 |
        tr -d ' \n' > "$3"
}

# seal <peer public key DER> <file> <out>: <file> encrypted to the peer key: an ephemeral
# P-256 public key (DER), then openssl enc with the ECDH secret as pass.
seal() {
    local work
    work=$(mktemp -d)
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/key.pem"
    openssl pkey -in "$work/key.pem" -pubout -outform DER -out "$3"
    ecdh_pass "$work/key.pem" "$1" "$work/pass"
    openssl enc -aes-256-cbc -pbkdf2 -iter 100000 -md sha256 -salt -pass "file:$work/pass" \
        -in "$2" >> "$3"
    rm -rf "$work"
}

# unseal <private key PEM> <sealed file> <out>: the inverse of seal.
unseal() {
    local work
    work=$(mktemp -d)
    head -c "$PEER_KEY_BYTES" "$2" > "$work/peer.der"
    tail -c +"$((PEER_KEY_BYTES + 1))" "$2" > "$work/body"
    local rc=0
    if ! ecdh_pass "$1" "$work/peer.der" "$work/pass" ||
        ! openssl enc -d -aes-256-cbc -pbkdf2 -iter 100000 -md sha256 \
            -pass "file:$work/pass" -in "$work/body" -out "$3"; then
        rc=1
    fi
    rm -rf "$work"
    return "$rc"
}

# handover_request: "<image id> <public key>" of Magnum's queued snapshot request, if any.
handover_request() {
    glance_call -G --data-urlencode "name=${HANDOVER_NAME_PREFIX}${CLUSTER_UUID}" \
        --data-urlencode "os_hidden=true" --data-urlencode "status=queued" \
        "$GLANCE_URL/v2/images" |
        jq -r '.images[0] // empty | "\(.id) \(.magnum_etcd_handover_key)"'
}

# etcd_handover: answer a snapshot request (magnum-etcd-handover.timer, every 15 s).
etcd_handover() {
    local request id key work
    request=$(handover_request) || return 1
    [[ -n "$request" ]] || return 0
    read -r id key <<< "$request"
    if [[ ! "$id" =~ ^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$ ||
          ! "$key" =~ ^[A-Za-z0-9+/]{1,400}={0,2}$ ]]; then
        log "ignoring a malformed etcd snapshot request"
        return 1
    fi
    work=$(mktemp -d)
    local rc=0
    if printf '%s' "$key" | base64 -d > "$work/peer.der" &&
        "$BIN_DIR/etcdctl" --endpoints https://127.0.0.1:2379 --cacert "$PKI_DIR/ca.crt" \
            --cert "$PKI_DIR/etcd.crt" --key "$PKI_DIR/etcd.key" \
            snapshot save "$work/snapshot.db" &&
        seal "$work/peer.der" "$work/snapshot.db" "$work/sealed" &&
        glance_call -X PUT -H "Content-Type: application/octet-stream" \
            --data-binary "@$work/sealed" "$GLANCE_URL/v2/images/$id/file"; then
        log "etcd snapshot handed over (image $id)"
    else
        rc=1
    fi
    rm -rf "$work"
    return "$rc"
}

# etcd_restore <name> <initial cluster>: this master's etcd data from the snapshot its
# predecessor handed over, checked against the SHA-512 the driver saw.
etcd_restore() {
    local work rc=0
    work=$(mktemp -d)
    if ! retry 12 glance_call -o "$work/sealed" \
        "$GLANCE_URL/v2/images/${ETCD_RESTORE_IMAGE:-}/file"; then
        rc=1
    fi
    if (( rc == 0 )) && ! echo "${ETCD_RESTORE_SHA512:-}  $work/sealed" | sha512sum --check --status
    then
        log "the etcd snapshot in image ${ETCD_RESTORE_IMAGE:-} is not the one Magnum verified"
        rc=1
    fi
    if (( rc == 0 )) && ! {
        (umask 077 && printf '%s' "${ETCD_RESTORE_KEY:-}" | base64 -d > "$work/key.pem") &&
            unseal "$work/key.pem" "$work/sealed" "$work/snapshot.db" &&
            "$BIN_DIR/etcdutl" snapshot restore "$work/snapshot.db" --name "$1" \
                --initial-cluster "$2" --initial-cluster-token "$CLUSTER_UUID" \
                --initial-advertise-peer-urls "https://${NODE_IP}:2380" \
                --data-dir /var/lib/etcd
    }; then
        rc=1
    fi
    rm -rf "$work"
    return "$rc"
}

handover_units() {
    cat > /etc/systemd/system/magnum-etcd-handover.service <<'UNIT'
[Unit]
Description=Hand etcd's snapshot over when Magnum asks (before this master is replaced)
Requires=etcd.service
After=etcd.service

[Service]
Type=oneshot
ExecStart=/usr/local/lib/magnum/fragments/40-etcd.sh handover
UNIT
    cat > /etc/systemd/system/magnum-etcd-handover.timer <<'UNIT'
[Unit]
Description=Look for Magnum's etcd snapshot requests

[Timer]
OnActiveSec=15s
OnUnitInactiveSec=15s

[Install]
WantedBy=timers.target
UNIT
}

# handover: the service's entry point, with the node's settings read as the bootstrap does.
handover() {
    # shellcheck source=magnum-bootstrap.sh
    . "$(dirname "${BASH_SOURCE[0]}")/../../../bin/magnum-bootstrap"
    load_settings /etc/magnum/bootstrap.env && load_settings /etc/magnum/runtime.env &&
        etcd_handover
}

main() {
    is_master || return 0

    local release="etcd-${ETCD_TAG}-linux-${ARCH}"
    download "https://github.com/etcd-io/etcd/releases/download/${ETCD_TAG}/${release}.tar.gz" \
        /tmp/etcd.tar.gz
    tar -C /tmp -xzf /tmp/etcd.tar.gz
    install -m 755 "/tmp/${release}/etcd" "/tmp/${release}/etcdctl" "/tmp/${release}/etcdutl" \
        "$BIN_DIR/"

    local masters name initial="" i state stale
    IFS=, read -r -a masters <<< "$MASTER_IPS"
    name="etcd-${NODE_INDEX}"
    for i in "${!masters[@]}"; do
        initial="${initial:+$initial,}etcd-${i}=https://${masters[$i]}:2380"
    done

    state=new
    if [[ -n "${ETCD_RESTORE_IMAGE:-}" && ! -d /var/lib/etcd/member ]]; then
        etcd_restore "$name" "$initial" || {
            log "cannot restore etcd from the snapshot in image ${ETCD_RESTORE_IMAGE:-}"
            return 1
        }
    fi
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
    if lone_master && [[ -n "${GLANCE_URL:-}" && -n "${TRUST_ID:-}" ]]; then
        handover_units
        systemctl daemon-reload
        systemctl enable --now magnum-etcd-handover.timer
    fi
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    if [[ "${1:-}" == handover ]]; then
        handover
    else
        main "$@"
    fi
fi
