"""Kubernetes on Fedora CoreOS (Ignition)."""
