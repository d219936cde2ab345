"""Local processes: process groups with a registry of what this run started (and a reaper for a killed run's
leftovers), readiness waits with timeouts and log tails, and free loopback ports."""
