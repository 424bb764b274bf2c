"""octavia-api under gunicorn (full tier): reset sys.argv to the octavia.conf of localcloud."""
import os
import sys

sys.argv = [sys.argv[0], "--config-file", os.environ["LOCALCLOUD_OCTAVIA_CONF"]]

from octavia.wsgi.api import application  # noqa: E402,F401
