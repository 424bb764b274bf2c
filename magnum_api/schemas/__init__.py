"""Request schemas and response views, one module per resource (the field layer: fields.py)."""
