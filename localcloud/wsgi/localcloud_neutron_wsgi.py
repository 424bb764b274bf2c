"""neutron-api under gunicorn; configs from OS_NEUTRON_CONFIG_DIR (full tier)."""
import sys

sys.argv = sys.argv[:1]

from neutron.wsgi.api import application  # noqa: E402,F401
