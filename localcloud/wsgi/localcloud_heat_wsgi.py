"""heat-api under gunicorn: reset sys.argv to the heat.conf written by localcloud."""
import os
import sys

sys.argv = [sys.argv[0], "--config-file", os.environ["LOCALCLOUD_HEAT_CONF"]]

from heat.wsgi.api import application  # noqa: E402,F401
