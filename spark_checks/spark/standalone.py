"""A Spark standalone cluster on this machine (a master and one or more workers, started from the pyspark
distribution), for checking histories the way a nightly job does once they outgrow one process:
``--pulsar-ha-spark-master spark://127.0.0.1:<port>`` (or ``python -m spark_checks --master ...``).

::

    with LocalSparkCluster(work_dir, workers=2) as cluster:
        print(cluster.master_url)            # spark://127.0.0.1:<port>

Every daemon runs in a process group of its own and is stopped (TERM, then KILL) by :meth:`stop`, also when the
start fails. Nothing here imports pyspark's Python side: only its ``bin/spark-class`` is used.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import IO, Any

LOOPBACK = "127.0.0.1"


class SparkClusterError(RuntimeError):
    """The cluster did not come up; the message carries the daemon's last log lines."""


def spark_home() -> Path:
    """The pyspark distribution's home (it carries ``bin/spark-class`` and the jars)."""
    import importlib.util

    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        raise SparkClusterError("pyspark is not installed: pip install pyspark")
    return Path(spec.origin).parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


class LocalSparkCluster:
    """A master and ``workers`` workers (each ``cores`` cores, ``memory`` of executor memory) on loopback ports."""

    def __init__(
        self, work_dir: str | os.PathLike[str], *, cores: int = 1, memory: str = "1g", workers: int = 1
    ) -> None:
        if workers < 1:
            raise ValueError("a cluster needs at least one worker")
        self.work_dir = Path(work_dir)
        self.cores = cores
        self.memory = memory
        self.workers = workers
        self.master_port = _free_port()
        self.master_ui_port = _free_port()
        self.worker_ui_ports = [_free_port() for _ in range(workers)]
        self._processes: list[tuple[str, subprocess.Popen[bytes], Path, IO[bytes]]] = []

    @property
    def master_url(self) -> str:
        return f"spark://{LOOPBACK}:{self.master_port}"

    @property
    def master_ui(self) -> str:
        return f"http://{LOOPBACK}:{self.master_ui_port}"

    def _env(self, name: str) -> dict[str, str]:
        from spark_checks.spark.session import java_home_env

        env = dict(os.environ, **java_home_env())
        env.update(
            SPARK_HOME=str(spark_home()),
            SPARK_LOCAL_IP=LOOPBACK,
            SPARK_LOG_DIR=str(self.work_dir / "logs"),
            SPARK_WORKER_DIR=str(self.work_dir / name),  # a worker's executors' directories
            SPARK_NO_DAEMONIZE="1",
        )
        return env

    def _spawn(self, name: str, *args: str) -> None:
        log_path = self.work_dir / f"{name}.log"
        log = log_path.open("ab")
        process = subprocess.Popen(
            [str(spark_home() / "bin" / "spark-class"), *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=self._env(name),
            cwd=self.work_dir,
            start_new_session=True,  # a process group of its own: stop() signals the JVM and its launcher
        )
        self._processes.append((name, process, log_path, log))

    def worker_pids(self) -> list[int]:
        """The workers' processes (their executors, and those executors' Python workers, are their children)."""
        return [process.pid for name, process, _, _ in self._processes if name.startswith("worker")]

    def state(self) -> dict[str, Any]:
        """The master's state (``/json/``): workers, active and completed applications."""
        with urllib.request.urlopen(f"{self.master_ui}/json/", timeout=5) as response:
            state: dict[str, Any] = json.loads(response.read())
        return state

    def _wait(self, what: str, ready: Any, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for name, process, log_path, _ in self._processes:
                if process.poll() is not None:
                    raise SparkClusterError(
                        f"the Spark {name} exited with {process.returncode} while waiting for {what}; "
                        f"its log ({log_path}):\n{_tail(log_path)}"
                    )
            with contextlib.suppress(OSError, ValueError):
                if ready():
                    return
            time.sleep(0.5)
        logs = "\n".join(f"--- {name} ({path}):\n{_tail(path)}" for name, _, path, _ in self._processes)
        raise SparkClusterError(f"no {what} within {timeout_s:g}s (hint: is Java 17+ on PATH or JAVA_HOME?)\n{logs}")

    def start(self, timeout_s: float = 90.0) -> LocalSparkCluster:
        self.work_dir.mkdir(parents=True, exist_ok=True)
        try:
            self._spawn(
                "master",
                "org.apache.spark.deploy.master.Master",
                "--host", LOOPBACK,
                "--port", str(self.master_port),
                "--webui-port", str(self.master_ui_port),
            )  # fmt: skip
            self._wait("master", lambda: self.state().get("status") == "ALIVE", timeout_s)
            for index, ui_port in enumerate(self.worker_ui_ports):
                self._spawn(
                    "worker" if self.workers == 1 else f"worker-{index + 1}",
                    "org.apache.spark.deploy.worker.Worker",
                    "--host", LOOPBACK,
                    "--cores", str(self.cores),
                    "--memory", self.memory,
                    "--webui-port", str(ui_port),
                    self.master_url,
                )  # fmt: skip
            self._wait(
                f"{self.workers} worker(s) registered with the master",
                lambda: self.state().get("aliveworkers", 0) >= self.workers,
                timeout_s,
            )
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self, grace_s: float = 10.0) -> None:
        for _, process, _, log in reversed(self._processes):
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=grace_s)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(process.pid, signal.SIGKILL)
                    process.wait(timeout=grace_s)
            log.close()
        self._processes.clear()

    def __enter__(self) -> LocalSparkCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
