"""The workload (Jepsen's client): producers and consumers that record every send, ack and receive."""
