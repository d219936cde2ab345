"""Operator-facing components over Pulsar's admin API (usable without pytest): PIP-7 failure domains."""
