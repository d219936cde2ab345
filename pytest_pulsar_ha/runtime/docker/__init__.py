"""The docker backend: every cluster process (a standalone, or ZooKeeper, bookie and brokers) in a container."""
