# Every target installs what it needs first: a virtual environment with the package and its dev tools,
# then Pulsar (from Maven Central, with mvn) and toxiproxy (go install) into ~/.cache/pytest-pulsar-ha.
VENV ?= .venv
PY := $(VENV)/bin/python
PYTEST_ARGS ?=

.PHONY: setup provision demo smoke test lint unit bench reap multi-broker migration-chaos nightly soak side-by-side

setup: $(VENV)/.installed provision

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

provision: $(VENV)/.installed
	$(VENV)/bin/pulsar-ha provision

# The main job: the shipped chaos scenarios on the embedded default, with a report (reports/pulsar-ha/index.html).
demo: setup
	$(PY) -m pytest scenarios --ignore=scenarios/multi-broker -m "not wedges_client and not nightly_demo" -p no:cacheprovider $(PYTEST_ARGS)

# The PIP-7 scenarios and tests alone (4-broker clusters, 9-12 minutes; `make test` runs them too), then the
# tests marked `unsettled`: not reliable enough for `make test` yet (README, "Development").
multi-broker: setup
	$(PY) -m pytest scenarios/multi-broker tests/runtime/multi_broker tests/runtime/docker/test_multi_broker_on_containers.py -p no:cacheprovider $(PYTEST_ARGS)
	$(PY) -m pytest tests -m unsettled -p no:cacheprovider $(PYTEST_ARGS)

# The PIP-188 scenarios in which the Pulsar client stalls for good (mark `wedges_client`: its threads never
# return, and later clients of the same process can stall too), each in a pytest process of its own.
migration-chaos: setup
	@status=0; for id in $$($(PY) -m pytest scenarios tests/components/migration -m wedges_client --collect-only -q -p no:cacheprovider | grep '::'); do \
		$(PY) -m pytest "$$id" -p no:cacheprovider $(PYTEST_ARGS) || status=1; done; exit $$status

# A short nightly profile (about 30 minutes here): rounds of the drawn-fault scenarios, each with a fresh seed,
# until the budget is spent; then the trend page across every night kept in reports/nightly (README, "Nightly").
NIGHTLY_FOR ?= 30m
nightly: setup
	$(VENV)/bin/pulsar-ha nightly run --results reports/nightly --for $(NIGHTLY_FOR) -- \
		scenarios/generated-chaos.pulsar-ha.yaml scenarios/nightly -m "not wedges_client" $(PYTEST_ARGS)

# The 20-minute soak (faults drawn throughout, history streamed to Parquet, checked on Spark; README, "Soaks").
# SPARK_MASTER=spark://host:port sends the checks to a Spark cluster instead of local[*]; then the test of the checks
# on a Spark standalone cluster started here (mark spark_cluster).
SPARK_MASTER ?=
soak: setup
	$(PY) -m pytest scenarios/soak -m soak -p no:cacheprovider $(if $(SPARK_MASTER),--pulsar-ha-spark-master=$(SPARK_MASTER)) $(PYTEST_ARGS)
	$(PY) -m pytest tests/spark/test_standalone_cluster.py -p no:cacheprovider $(PYTEST_ARGS)

# The side-by-side families whole (ours, the native provider and Java's on the same faults; README, "Side by
# side"): make test runs primary-outage[java] and leaves the variants marked side_by_side to this target.
side-by-side: setup
	$(PY) -m pytest scenarios/primary-outage.pulsar-ha.yaml scenarios/hung-primary.pulsar-ha.yaml -p no:cacheprovider $(PYTEST_ARGS)

# The smallest check that the environment works: start the clusters, prove replication both ways, stop.
smoke: setup
	$(VENV)/bin/pulsar-ha smoke

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# Short tracebacks: a failure's own lines, then what the brokers logged meanwhile (the plugin adds them).
test: setup lint
	$(PY) -m pytest -m "not unsettled and not wedges_client and not nightly_demo and not heavy and not soak and not side_by_side and not spark_cluster" --tb=short --durations=10 $(PYTEST_ARGS)

# Everything that needs no cluster (the plugin marks every test that asks for one `real_clusters`).
unit: $(VENV)/.installed
	$(PY) -m pytest -m "not real_clusters" --ignore=scenarios/multi-broker $(PYTEST_ARGS)

bench: setup
	$(PY) benchmarks/bringup.py

reap: $(VENV)/.installed
	$(VENV)/bin/pulsar-ha reap
