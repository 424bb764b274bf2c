"""glance-api under gunicorn; the config directory comes from OS_GLANCE_CONFIG_DIR."""
import sys

sys.argv = sys.argv[:1]

from glance.wsgi.api import application  # noqa: E402,F401
