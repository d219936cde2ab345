"""pulsar-ha migrate: argument errors exit 2 with a message naming the flag; nothing is called."""

from __future__ import annotations

import pytest

from pytest_pulsar_ha.cli import main

BASE = ["--blue", "blue=http://127.0.0.1:1", "--green", "green=http://127.0.0.1:2"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["migrate", "preflight", "--blue", "blue", "--green", "green=http://g:1"],
            "--blue 'blue': expected NAME=ADMIN_URL",
        ),
        (
            ["migrate", "preflight", "--blue", "blue=pulsar://b:1", "--green", "green=http://g:1"],
            "expected NAME=ADMIN_URL",
        ),
        (["migrate", "preflight", "--blue", "x=http://b:1", "--green", "x=http://g:1"], "both name 'x'"),
        (["migrate", "status", *BASE, "--dry-run"], "--dry-run and --force belong to the start step"),
        (["migrate", "wait", *BASE, "--timeout", "0"], "positive number of seconds"),
    ],
)
def test_usage_errors_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["migrate", "explode", *BASE],
        ["migrate", "preflight", "--green", "green=http://g:1"],
        ["migrate", "wait", *BASE, "--timeout", "soon"],
    ],
)
def test_argparse_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert "usage: pulsar-ha migrate" in capsys.readouterr().err


def test_an_unreachable_blue_is_a_problem_not_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert main(["migrate", "preflight", *BASE, "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert [p["code"] for p in document["problems"]] == ["blue-unreachable"]
    assert document["exit_code"] == 1


def test_the_tokens_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_pulsar_ha.cli import build_parser
    from pytest_pulsar_ha.cli.migrate import migration_from_args

    monkeypatch.setenv("PULSAR_HA_BLUE_TOKEN", "b-tok")
    monkeypatch.setenv("PULSAR_HA_CLIENT_TOKEN", "c-tok")
    args = build_parser().parse_args(["migrate", "status", *BASE, "--green-token", "g-tok", "--namespace", "t/n"])
    migration = migration_from_args(args)
    assert (migration.blue.token, migration.green.token, migration.client_token) == ("b-tok", "g-tok", "c-tok")
    assert migration.namespaces == ["t/n"]
