"""Alembic migrations of the Magnum database (``db/migrations``)."""
