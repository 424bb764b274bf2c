"""Kubernetes on Fedora Atomic (cloud-init)."""
