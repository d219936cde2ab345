"""What a failed real-cluster test reports beside its traceback: the ERROR/WARN lines the Pulsar processes and the
workload's client logged while it ran, and the JVM pauses that ended meanwhile (in its report section, and once
more, for every failed test, in the terminal summary)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pulsar_ha.pytest.keys import ENV_KEY, FAILURE_LOGS_KEY, SETUP_START_KEY


def _environment_dirs(config: pytest.Config) -> list[Path]:
    """The work directories of this session's environments (each has a ``toxiproxy.log``), a warm one's included
    (it lives under the cache)."""
    found: list[Path] = []
    factory = getattr(config, "_tmp_path_factory", None)  # pytest's own, set by its tmpdir plugin
    if factory is not None:
        base = Path(factory.getbasetemp())
        found = sorted(d for d in base.iterdir() if not d.is_symlink() and (d / "toxiproxy.log").is_file())
    env = config.stash.get(ENV_KEY, None)
    warm = Path(env.work_dir) if env is not None else None
    if warm is not None and warm not in found and (warm / "toxiproxy.log").is_file():
        found.append(warm)
    return found


def attach_failure_logs(item: pytest.Item, report: pytest.TestReport) -> None:
    """A failed real-cluster test carries what the Pulsar processes and the workload's client logged while it ran
    (ERROR/WARN lines) and the JVM pauses of 0.1 s or more that ended meanwhile."""
    if report.when == "setup":
        item.stash[SETUP_START_KEY] = report.start
    real = item.get_closest_marker("real_clusters") is not None or hasattr(item, "environment_specs")
    if report.failed and real and not hasattr(report, "wasxfail"):
        from pytest_pulsar_ha.runtime.failure_logs import excerpts
        from pytest_pulsar_ha.runtime.jvm_pauses import pause_lines

        start = item.stash.get(SETUP_START_KEY, report.start)
        roots = _environment_dirs(item.config)
        lines = [line for part in excerpts(roots, start, report.stop) for line in part.lines()]
        lines += pause_lines(roots, start, report.stop)
        if lines:
            report.sections.append(("pulsar-ha: what the brokers logged during the test", "\n".join(lines)))
            item.config.stash.setdefault(FAILURE_LOGS_KEY, []).append((item.nodeid, lines))


def write_failure_logs(terminalreporter: pytest.TerminalReporter, limit: int = 12) -> None:
    failures = terminalreporter.config.stash.get(FAILURE_LOGS_KEY, [])
    if not failures:
        return
    terminalreporter.section("pulsar-ha: broker logs of the failed tests")
    for nodeid, lines in failures:
        terminalreporter.write_line(nodeid)
        for line in lines[:limit]:
            terminalreporter.write_line(f"  {line}")


RUN_PAGE_PROPERTY = "pulsar_ha_run_page"


def link_run_page_in_html_report(item: pytest.Item, report: pytest.TestReport) -> None:
    """With pytest-html active, a scenario test's row links its run page (``extras``), as its JUnit record does
    (the ``pulsar_ha_run_page`` property)."""
    if report.when != "call" or not item.config.pluginmanager.hasplugin("html"):
        return
    page = next((str(value) for key, value in item.user_properties if key == RUN_PAGE_PROPERTY), None)
    if page is None:
        return
    import pytest_html  # pytest-html ships no types

    extras = list(getattr(report, "extras", []))
    extras.append(pytest_html.extras.url(Path(page).resolve().as_uri(), name="run page"))
    report.extras = extras  # type: ignore[attr-defined]
