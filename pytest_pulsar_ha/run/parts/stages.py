"""When the parts start and finish, relative to each other (lower first)."""

NONE = 0
"""the part does nothing at this step"""

# start
LOAD = 10
"""the workload starts sending and receiving"""
OBSERVE = 20
"""watches take a first reading, before any fault"""
CLOCK = 30
"""t0: the moment the faults' and writes' offsets count from"""
FAULTS = 40
"""the nemesis starts its schedule"""
WRITES = 50
"""metadata writes start"""

# finish
STOP_LOAD = 10
"""the producers stop sending"""
UNDO = 20
"""every fault is undone"""
SETTLE = 30
"""the metadata writes stop and their sync settles"""
STOP_OBSERVING = 40
"""the watches stop"""
DRAIN = 50
"""every acknowledged send is received, or the drain times out"""
LAST_WORD = 60
"""what the run's mutant did, once nothing else can happen"""
