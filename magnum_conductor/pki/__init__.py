"""Cluster certificates: CAs and CSR signing (x509), their storage backends, the facade."""
