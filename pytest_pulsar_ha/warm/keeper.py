"""The keeper of a warm environment: ``python -m pytest_pulsar_ha.warm.keeper <folder>`` (``pulsar-ha up`` starts
it in a session of its own). It reads ``<folder>/settings.json``, starts the environment in ``<folder>/work``
(so it owns every process: the pid registry names it), writes the state file once every cluster serves, and
stops everything on SIGTERM or SIGINT (``pulsar-ha down``). An environment that does not start leaves
``failed.txt`` with the reason, and nothing running."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import traceback
from pathlib import Path
from types import FrameType

from pytest_pulsar_ha.process.pid_registry import process_start_ticks
from pytest_pulsar_ha.settings import HaSettings
from pytest_pulsar_ha.warm.control import ControlServer
from pytest_pulsar_ha.warm.description import EnvironmentDescription
from pytest_pulsar_ha.warm.remote import node_info
from pytest_pulsar_ha.warm.state import FAILED_FILE, STATE_FILE, ClusterAddresses, WarmState, WarmStore

SETTINGS_FILE = "settings.json"


def settings_of(description: EnvironmentDescription, cache_dir: Path, startup_timeout: float) -> HaSettings:
    return HaSettings(
        clusters=tuple(c.spec() for c in description.clusters),
        backend=description.backend,
        pulsar_version=description.pulsar_version,
        pulsar_substitutions=description.pulsar_substitutions,
        heap=description.heap,
        cache_dir=cache_dir,
        startup_timeout=startup_timeout,
    )


def write_settings(folder: Path, description: EnvironmentDescription, settings: HaSettings) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    data = {
        "description": description.to_json(),
        "cache_dir": str(settings.cache_dir),
        "startup_timeout": settings.startup_timeout,
    }
    (folder / SETTINGS_FILE).write_text(json.dumps(data))


class _Stop(Exception):
    pass


def _stop(signum: int, frame: FrameType | None) -> None:
    raise _Stop(signum)


def main(folder: Path) -> int:
    from pytest_pulsar_ha.runtime.backends import build_environment

    data = json.loads((folder / SETTINGS_FILE).read_text())
    description = EnvironmentDescription.from_json(data["description"])
    settings = settings_of(description, Path(data["cache_dir"]), float(data["startup_timeout"]))
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    store = WarmStore(settings.cache_dir)
    (folder / FAILED_FILE).unlink(missing_ok=True)
    env = None
    control: ControlServer | None = None
    try:
        (folder / "work").mkdir(parents=True, exist_ok=True)
        env = build_environment(settings, work_dir=folder / "work", progress=lambda m: print(m, flush=True))
        print(f"starting {description.summary()}", flush=True)
        env.start()
        me = os.getpid()
        control = ControlServer(folder, {name: c.node for name, c in env.clusters.items()}).start()
        clusters = {
            name: ClusterAddresses(c.service_url, c.admin_url, c.direct_service_url, c.direct_admin_url, c.token)
            for name, c in env.clusters.items()
        }
        state = WarmState(
            description,
            me,
            process_start_ticks(me) or 0,
            time.time(),
            str(env.work_dir),
            clusters,
            env.toxiproxy.api_url,
            str(getattr(env.backend, "pulsar_runtime", "") or description.pulsar_version),
            {name: node_info(c) for name, c in env.clusters.items()},
            env.layout.to_json(),
        )
        store.write(state)
        print(f"up in {env.startup_seconds:.1f}s: {description.digest}", flush=True)
        while True:
            time.sleep(3600)
    except _Stop:
        print("stopping", flush=True)
        return 0
    except BaseException as exc:  # the reason goes to failed.txt for ``pulsar-ha up`` to print
        (folder / FAILED_FILE).write_text(f"{type(exc).__name__}: {exc}\n")
        traceback.print_exc()
        return 1
    finally:
        if control is not None:
            control.close()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second signal must not cut the clean-up short
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        (folder / STATE_FILE).unlink(missing_ok=True)  # from now on nobody may attach
        if env is not None:
            env.close()
        print("stopped", flush=True)


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
