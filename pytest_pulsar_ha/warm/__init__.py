"""Warm environments: ``pulsar-ha up`` starts an environment and leaves it running, owned by a *keeper* process
(:mod:`~pytest_pulsar_ha.warm.keeper`), described by a state file under the cache
(:mod:`~pytest_pulsar_ha.warm.state`) whose digest says what it is (:mod:`~pytest_pulsar_ha.warm.description`);
``pulsar-ha status`` and ``pulsar-ha down`` read and stop it. One session at a time uses one
(:mod:`~pytest_pulsar_ha.warm.lock`).

The keeper is the owner of every process the environment starts (the pid registry's records name it), so the
reaper leaves a live warm environment alone and removes a dead one's leftovers, as for any run.
"""
