"""The documentation builds without a single warning (as ``tox -e docs`` does)."""

from __future__ import annotations

import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[3]


def test_sphinx_build_is_warning_free(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(REPO / "doc" / "source"), str(tmp_path / "html")],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr

    labels = (tmp_path / "html" / "admin" / "labels.html").read_text()
    assert "kube_tag" in labels and "flannel_backend" in labels  # table rendered from code
    assert (tmp_path / "html" / "differences.html").exists()
    reference = (tmp_path / "html" / "api" / "index.html").read_text()
    # rendered from the generated OpenAPI document
    assert "POST /v1/clusters/{cluster_ident}/actions/resize" in reference
    assert "nodes_to_remove" in reference and "Since microversion 1.7" in reference
