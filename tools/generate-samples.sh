#!/usr/bin/env bash
# Regenerate the checked-in samples from the code:
#   etc/magnum.conf.sample  (oslo-config-generator, etc/magnum-config-generator.conf)
#   etc/policy.yaml         (oslopolicy-sample-generator, etc/magnum-policy-generator.conf)
#
# Usage: tools/generate-samples.sh [OUTPUT_DIR]   (default: etc)
#
# A namespace whose package cannot be loaded yet is left out, and the sample says so in a
# header, so the samples still build while the tree is incomplete and go stale (the test
# tests/unit/tooling/test_samples.py fails) the moment the namespace starts to load.
set -euo pipefail
cd "$(dirname "$0")/.."

out_dir=${1:-etc}
python=${PYTHON:-.venv/bin/python}
[ -x "$python" ] || python=python3
mkdir -p "$out_dir"

"$python" -W ignore - "$out_dir" <<'PY'
import importlib.metadata
import os
import re
import sys
import tempfile

from oslo_config import generator as config_generator
from oslo_policy import generator as policy_generator

out_dir = sys.argv[1]
SAMPLES = (
    # generator config, entry-point group of its namespaces, sample file, generator
    ("etc/magnum-config-generator.conf", "oslo.config.opts", "magnum.conf.sample",
     lambda conf, out: config_generator.main(["--config-file", conf, "--output-file", out])),
    ("etc/magnum-policy-generator.conf", "oslo.policy.policies", "policy.yaml",
     lambda conf, out: policy_generator.generate_sample(
         ["--config-file", conf, "--output-file", out])),
)
NAMESPACE = re.compile(r"^namespace\s*=\s*(\S+)\s*$")


def load_error(group: str, name: str) -> str | None:
    """Why the namespace's entry point cannot produce its list, or None when it can."""
    entries = [e for e in importlib.metadata.entry_points(group=group) if e.name == name]
    if not entries:
        return "no entry point"
    try:
        entries[0].load()()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


for generator_conf, group, sample, generate in SAMPLES:
    kept, skipped = [], []
    for line in open(generator_conf).read().splitlines():
        match = NAMESPACE.match(line)
        error = load_error(group, match.group(1)) if match else None
        if error:
            skipped.append(f"{match.group(1)} ({error.splitlines()[0]})")
        elif not line.startswith("output_file"):
            kept.append(line)
    output = os.path.join(out_dir, sample)
    header = "".join(f"# NOT INCLUDED (cannot load): {item}\n" for item in skipped)
    body = ""
    if any(NAMESPACE.match(line) for line in kept):
        with tempfile.NamedTemporaryFile("w", suffix=".conf") as conf:
            conf.write("\n".join(kept) + "\n")
            conf.flush()
            generate(conf.name, output)
        body = open(output).read()
    if header:
        header = ("# Generated while some namespaces could not be loaded; run\n"
                  "# tools/generate-samples.sh again once they can.\n" + header + "\n")
    with open(output, "w") as stream:
        stream.write(header + body)
    print(f"{output}: {'skipped ' + ', '.join(skipped) if skipped else 'complete'}")
PY
