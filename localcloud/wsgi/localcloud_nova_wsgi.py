"""nova-api (osapi_compute) under gunicorn; configs from OS_NOVA_CONFIG_DIR (full tier)."""
import sys

sys.argv = sys.argv[:1]

from nova.wsgi.osapi_compute import application  # noqa: E402,F401
