"""magnum-conductor: executes recorded cluster operations (Heat, trusts, certificates)."""
