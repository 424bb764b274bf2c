"""Command-line tools shared by both services."""
