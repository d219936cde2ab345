"""What a clean-clone rehearsal of ``.ci/run`` printed, in short: the figures that the rehearsal table in
docs/development.md quotes, read from the run's own log.

    rm -rf /tmp/rehearsal && git clone -q . /tmp/rehearsal && cd /tmp/rehearsal && \\
        (date -u +%s > /tmp/rehearsal.started; CI=true bash .ci/run > /tmp/rehearsal.log 2>&1)
    python benchmarks/store.py benchmarks/ci_rehearsal_log.py /tmp/rehearsal.log \\
        --started 2026-11-29T20:57:51Z

Printed: the machine line, the minimal-rootfs smoke's time, each pytest session's result line, ``make test``'s time,
the slowest tests, and the whole run's wall time from ``--started`` (when the rehearsal was launched; the log does
not say) to the log's last write. Exits 0 when ``.ci/run`` reached ``make test``'s end with every session green,
1 when a session failed or the log ends early (benchmarks/store.py keeps both), 2 when the log cannot be read.
"""

from __future__ import annotations

import argparse
import datetime
import re
import sys
from pathlib import Path

SESSION = re.compile(r"^=+ (.*\bin [0-9.]+s.*?) =+$")
KEPT = (
    re.compile(r"^machine: "),
    re.compile(r"^minimal-rootfs smoke: "),
    re.compile(r"^make test: \d+ s$"),
)
SLOWEST = "slowest 10 durations"


def summary(lines: list[str]) -> tuple[list[str], bool]:
    """The lines worth keeping, and whether every pytest session was green and ``make test`` ended."""
    out: list[str] = []
    green, ended = True, False
    slowest = -1
    for line in lines:
        if SLOWEST in line:
            out.append("slowest tests of the main session:")
            slowest = 10
            continue
        if slowest > 0:
            slowest -= 1
            out.append(f"  {line.strip()}")
            continue
        match = SESSION.match(line.strip())
        if match:
            where = "pytest in the minimal root" if line[:1].isspace() else "pytest"
            out.append(f"{where}: {match.group(1)}")
            green = green and " failed" not in match.group(1) and " error" not in match.group(1)
        elif any(pattern.match(line) for pattern in KEPT):
            out.append(line.rstrip())
            ended = ended or line.startswith("make test: ")
    return out, green and ended


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path, help="the output of .ci/run")
    parser.add_argument("--started", help="when the rehearsal was launched (ISO 8601, UTC)")
    args = parser.parse_args(argv)
    try:
        text = args.log.read_text(errors="replace")
    except OSError as exc:
        print(f"cannot read {args.log}: {exc}", file=sys.stderr)
        return 2
    lines, ok = summary(text.splitlines())
    print(*lines, sep="\n")
    if args.started:
        started = datetime.datetime.fromisoformat(args.started.replace("Z", "+00:00"))
        ended = datetime.datetime.fromtimestamp(args.log.stat().st_mtime, datetime.timezone.utc)
        print(
            f"wall time: {(ended - started).total_seconds():.0f} s "
            f"(launched {started:%H:%M:%S}, log last written {ended:%H:%M:%S} UTC)"
        )
    print("every session green" if ok else "a session failed, or the log ends before make test's end")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
