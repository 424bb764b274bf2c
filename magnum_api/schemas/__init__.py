"""Request schemas (WSME types) and response views, one module per resource."""
