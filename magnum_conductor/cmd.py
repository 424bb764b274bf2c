"""``magnum-conductor``: parse configuration, then run ``[conductor] workers`` processes."""

from __future__ import annotations

from oslo_log import log as logging

from magnum_common import config
from magnum_conductor import service

LOG = logging.getLogger(__name__)


def main(argv: list[str] | None = None) -> None:
    config.prepare_service(argv)
    manager = service.launch()
    LOG.info("magnum-conductor starting %d worker(s)", service.workers())
    manager.run()


if __name__ == "__main__":
    main()
