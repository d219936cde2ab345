"""Pulsar's admin REST API as the harness uses it: a small client with deadlines and bounded bodies, and the
cluster-failover calls."""
