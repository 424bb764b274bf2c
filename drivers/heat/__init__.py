"""Shared machinery of the Kubernetes Heat drivers: labels, parameters, templates, stacks."""
