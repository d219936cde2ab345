"""A finding's plain script's stored runs: parsed back per version, summarised, and its log lines picked."""

from __future__ import annotations

from pathlib import Path

from pytest_pulsar_ha.report import script_runs


def _stored(folder: Path, version: str, statuses: list[int]) -> None:
    lines = script_runs.header("python3 reproduce.py $PULSAR_HOME", "2026-11-29 11:00 UTC on 2 cores, 24 GiB")
    for index, status in enumerate(statuses, 1):
        lines += script_runs.run_block(index, status, f"[11:0{index}:00] attempt {index}\n[11:0{index}:30] done\n")
    path = folder / script_runs.RUNS_FOLDER / f"{version}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def test_stored_runs_come_back_per_version_with_their_status_and_output(tmp_path: Path) -> None:
    _stored(tmp_path, "4.2.4", [0, 0, 1])
    _stored(tmp_path, "4.0.8", [2])
    runs = script_runs.stored_runs(tmp_path)
    assert [(r.version, r.status) for r in runs] == [("4.0.8", 2), ("4.2.4", 0), ("4.2.4", 0), ("4.2.4", 1)]
    assert runs[-1].output[:2] == ("[11:03:00] attempt 3", "[11:03:30] done")
    assert runs[0].ran == "2026-11-29 11:00 UTC on 2 cores, 24 GiB"
    assert script_runs.summary(runs, "key") == [
        "- 4.0.8: shown in 0 of 1 runs (set-up error); ran 2026-11-29 11:00 UTC on 2 cores, 24 GiB "
        "([`runs/4.0.8.txt`](key/runs/4.0.8.txt))",
        "- 4.2.4: shown in 2 of 3 runs (shown, shown, not shown); ran 2026-11-29 11:00 UTC on 2 cores, 24 GiB "
        "([`runs/4.2.4.txt`](key/runs/4.2.4.txt))",
    ]


def test_no_stored_file_is_no_run(tmp_path: Path) -> None:
    assert script_runs.stored_runs(tmp_path) == []
    (tmp_path / script_runs.RUNS_FOLDER).mkdir()
    (tmp_path / script_runs.RUNS_FOLDER / "4.2.4.txt").write_text("$ python3 reproduce.py\n# ran today\n")
    assert script_runs.stored_runs(tmp_path) == []


def test_the_work_folder_is_the_last_one_the_script_names_and_only_matching_lines_are_kept(tmp_path: Path) -> None:
    output = "[1] Pulsar home /x; work folder /tmp/a\n[2] stopped every standalone; logs kept under /tmp/b\n"
    assert script_runs.work_folder(output) == Path("/tmp/b")
    assert script_runs.work_folder("crashed before starting") is None
    for cluster, lines in {
        "cluster-a": ["ok", "Failed to update metadata /admin/policies/t/ns x"],
        "cluster-b": ["ok"],
    }.items():
        log = tmp_path / cluster / "logs" / "stdout.log"
        log.parent.mkdir(parents=True)
        log.write_text("\n".join(lines) + "\n")
    hits = script_runs.matching_log_lines(tmp_path, r"Failed to update metadata /admin/policies/")
    assert hits == {"cluster-a": ["Failed to update metadata /admin/policies/t/ns x"], "cluster-b": []}
