"""Node bootstrap fragments and templates shared by every Kubernetes driver."""
