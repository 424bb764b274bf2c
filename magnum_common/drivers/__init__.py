"""The driver contract: the seam between the conductor (and the API) and the drivers.

``base`` is what the conductor asks of a driver and what it hands over (``view``: the
cluster as one typed, read-only snapshot of its rows); ``registry`` finds
the installed drivers (entry points ``magnum.drivers``); ``settings`` holds what the API
validates a request against and every driver agrees on (default node groups, boot volume).
Drivers (``drivers/``) implement ``base.Driver`` and import this package, never the API or
the conductor; the API and the conductor reach a driver only through this package.
"""
