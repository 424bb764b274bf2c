"""pecan controllers: the root (version discovery) and API v1."""
