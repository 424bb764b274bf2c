#!/bin/bash
# kubelet and kubectl of the cluster's Kubernetes version, checked against their sha256.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

base="https://dl.k8s.io/release/${KUBE_TAG}/bin/linux/${ARCH}"
for binary in kubelet kubectl; do
    sum=$(retry 10 curl --silent --show-error --fail --location "$base/$binary.sha256")
    download "$base/$binary" "$BIN_DIR/$binary" "$sum"
    chmod 755 "$BIN_DIR/$binary"
done
"$BIN_DIR/kubelet" --version
