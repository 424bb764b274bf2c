"""Kubernetes on Ubuntu (cloud-init)."""
