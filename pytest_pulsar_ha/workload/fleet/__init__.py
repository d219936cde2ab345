"""The workload over several worker processes, for production rates (:class:`.fleet.FleetWorkload`)."""
