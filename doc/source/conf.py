"""Sphinx configuration of the magnum documentation."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "_exts"))

project = "magnum-ng"
copyright = "magnum-ng contributors, Apache-2.0"
author = "magnum-ng contributors"
release = "0.1.0"

extensions = ["magnum_labels", "magnum_openapi"]
exclude_patterns = []
html_theme = "alabaster"
html_static_path = []
highlight_language = "none"
