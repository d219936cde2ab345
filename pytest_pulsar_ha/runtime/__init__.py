"""What runs the clusters: processes, backends, the multi-cluster environment, readiness and reaping."""
