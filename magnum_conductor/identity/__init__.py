"""Who the conductor acts as: Keystone sessions, cluster trusts, secrets encrypted at rest."""
