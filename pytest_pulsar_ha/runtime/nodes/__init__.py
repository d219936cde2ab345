"""What runs a cluster's processes, shared by the embedded and docker backends: a standalone, or ZooKeeper, a bookie
and brokers, with their configuration and readiness waits."""
