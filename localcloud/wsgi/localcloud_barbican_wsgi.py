"""Barbican under gunicorn.

Barbican 23's plugins read barbican.conf only from the default locations (~/.barbican, ~/,
/etc/barbican), so localcloud starts it with HOME pointing at the directory holding its
barbican.conf; the paste file is loaded from the virtualenv instead of /etc/barbican.
"""
import os
import sys

sys.argv = sys.argv[:1]

from paste import deploy  # noqa: E402

application = deploy.loadapp("config:" + os.environ["LOCALCLOUD_BARBICAN_PASTE"])
