"""Running one scenario: the conductor's fixed loop over the run parts, the run's context and its history.

Roles are kept apart as in Jepsen: the workload (the clients), the nemesis (the faults) and the schedule; everything
they do goes into one history, the only input of the checks. Each feature (namespaces, PIP-188 migrations, PIP-136
metadata writes, PIP-7 placement, soaks) is a part in :data:`pytest_pulsar_ha.run.parts.PARTS`; the conductor
(:func:`pytest_pulsar_ha.run.conductor.execute`) names none of them.
"""
