"""The work engine: RPC endpoints, leases, recorded operations, their handlers, recovery."""
