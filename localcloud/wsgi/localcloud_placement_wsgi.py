"""Placement under gunicorn; config from OS_PLACEMENT_CONFIG_DIR (full tier)."""
import sys

sys.argv = sys.argv[:1]

from placement.wsgi.api import application  # noqa: E402,F401
