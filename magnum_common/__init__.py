"""Pieces shared by magnum-api and magnum-conductor: config, context, errors, DB, RPC client."""
