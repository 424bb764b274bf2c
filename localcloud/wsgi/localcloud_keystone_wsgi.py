"""Keystone under gunicorn: oslo.config must not see gunicorn's own command line.

The config directory comes from OS_KEYSTONE_CONFIG_DIR (set by localcloud).
"""
import sys

sys.argv = sys.argv[:1]

from keystone.wsgi.api import application  # noqa: E402,F401
