"""Cluster drivers: the seam between the conductor and Heat templates per COE / OS."""
