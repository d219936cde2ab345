"""The nemesis (Jepsen's fault injector): faults applied on a schedule, recorded, always undone."""
