"""The Magnum REST API (v1): a pecan application behind a paste pipeline."""
