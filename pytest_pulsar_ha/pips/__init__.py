"""The operator's side of three Pulsar Improvement Proposals, over Pulsar's admin API and usable without pytest:
PIP-7 failure domains and anti-affinity placement (:mod:`~pytest_pulsar_ha.pips.failure_domains`,
:mod:`~pytest_pulsar_ha.pips.placing`, :mod:`~pytest_pulsar_ha.pips.placement_watch`), PIP-188 blue-green
migration (:mod:`~pytest_pulsar_ha.pips.migration`) and PIP-136 metadata sync
(:mod:`~pytest_pulsar_ha.pips.metadata_sync`). PIP-121's failover providers are not here: the clients' side is
``providers/`` and the cluster-failover calls :mod:`pytest_pulsar_ha.admin.failover`."""
