"""Fetch the artifacts of a lock (:mod:`pytest_pulsar_ha.provisioning.maven_lock`) with plain HTTP: in parallel,
each checked against the lock's sha1 and size, with progress, into a store in the cache laid out as a Maven
repository (``<cache>/maven/``), shared by every runtime and tool that needs the same file. A file already in the
store with the right sha1 is not fetched again."""

from __future__ import annotations

import hashlib
import os
import shutil
import threading
import time
import urllib.error
import urllib.request
import urllib.response
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pytest_pulsar_ha.errors import ProvisioningError
from pytest_pulsar_ha.provisioning.cache import Progress
from pytest_pulsar_ha.provisioning.maven_lock import REPOSITORY_ENV, LockEntry, repository_url

WORKERS = 8
TIMEOUT_S = 60.0
ATTEMPTS = 3
RETRY_PAUSE_S = 1.0
_CHUNK = 1 << 16

Opener = Callable[[str], "urllib.response.addinfourl"]


def store_dir(cache_dir: Path) -> Path:
    return cache_dir / "maven"


def _sha1(path: Path) -> str:
    digest = hashlib.sha1(usedforsecurity=False)
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _open(url: str) -> urllib.response.addinfourl:
    response: urllib.response.addinfourl = urllib.request.urlopen(url, timeout=TIMEOUT_S)
    return response


class _Tally:
    """Bytes and files done, reported at most every ``interval`` seconds."""

    def __init__(self, what: str, files: int, size: int, progress: Progress, interval: float) -> None:
        self.what, self.files, self.size, self.progress, self.interval = what, files, size, progress, interval
        self.done_files = self.done_bytes = 0
        self.lock = threading.Lock()
        self.last = time.monotonic()

    def add(self, size: int, file_done: bool = False) -> None:
        with self.lock:
            self.done_bytes += size
            self.done_files += int(file_done)
            now = time.monotonic()
            if now - self.last >= self.interval:
                self.last = now
                self.progress(
                    f"{self.what}: {self.done_files}/{self.files} files, "
                    f"{self.done_bytes / 1e6:.0f}/{self.size / 1e6:.0f} MB"
                )


def _fetch_one(entry: LockEntry, target: Path, base: str, tally: _Tally, opener: Opener) -> None:
    url = f"{base}/{entry.coordinate.path}"
    partial = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.part")
    last_error = ""
    for attempt in range(ATTEMPTS):
        digest, size = hashlib.sha1(usedforsecurity=False), 0
        try:
            with opener(url) as response, partial.open("wb") as out:
                while chunk := response.read(_CHUNK):
                    out.write(chunk)
                    digest.update(chunk)
                    size += len(chunk)
                    tally.add(len(chunk))
        except urllib.error.HTTPError as exc:
            partial.unlink(missing_ok=True)
            if exc.code == 404:
                raise ProvisioningError(f"{entry.coordinate} is not served ({url}: 404)") from None
            last_error = f"HTTP {exc.code}"
        except urllib.error.URLError as exc:
            partial.unlink(missing_ok=True)
            if isinstance(exc.reason, FileNotFoundError):  # a file:// repository without the file
                raise ProvisioningError(f"{entry.coordinate} is not served ({url}: no such file)") from None
            last_error = f"{type(exc).__name__}: {exc}"
        except OSError as exc:  # URLError, timeouts, resets
            partial.unlink(missing_ok=True)
            last_error = f"{type(exc).__name__}: {exc}"
        else:
            if digest.hexdigest() == entry.sha1 and size == entry.size:
                partial.replace(target)
                tally.add(0, file_done=True)
                return
            partial.unlink(missing_ok=True)
            raise ProvisioningError(
                f"{entry.coordinate} from {url} does not match the lock: sha1 {digest.hexdigest()} size {size}, "
                f"expected sha1 {entry.sha1} size {entry.size}"
            )
        tally.add(-size)
        time.sleep(RETRY_PAUSE_S * (attempt + 1))
    raise ProvisioningError(f"could not fetch {entry.coordinate} from {url} after {ATTEMPTS} tries: {last_error}")


def fetch_locked(
    entries: Iterable[LockEntry],
    cache_dir: Path,
    progress: Progress,
    what: str,
    *,
    opener: Opener = _open,
    base: str | None = None,
    interval: float = 2.0,
) -> dict[LockEntry, Path]:
    """Every entry's file in the store (fetched if missing or wrong), by entry."""
    store = store_dir(cache_dir)
    paths = {entry: store / entry.coordinate.path for entry in entries}
    missing = [e for e, p in paths.items() if not (p.is_file() and p.stat().st_size == e.size and _sha1(p) == e.sha1)]
    if not missing:
        return paths
    base = (base or repository_url()).rstrip("/")
    total = sum(e.size for e in missing)
    progress(f"{what}: fetching {len(missing)} files ({total / 1e6:.0f} MB) from {base}")
    began = time.monotonic()
    tally = _Tally(what, len(missing), total, progress, interval)
    for entry in missing:
        paths[entry].parent.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="maven-fetch") as pool:
        futures = [pool.submit(_fetch_one, e, paths[e], base, tally, opener) for e in missing]
        errors = [f.exception() for f in futures]
    failures = [e for e in errors if e is not None]
    if failures:
        raise ProvisioningError(
            f"{what}: {len(failures)} of {len(missing)} files could not be had:\n"
            + "\n".join(f"  {f}" for f in failures[:20])
            + f"\nhint: the repository is {base} (set ${REPOSITORY_ENV} to use another)"
        )
    progress(f"{what}: {len(missing)} files ({total / 1e6:.0f} MB) in {time.monotonic() - began:.1f}s, sha1 checked")
    return paths


def install(paths: dict[LockEntry, Path], directory: Path, name: Callable[[LockEntry], str]) -> None:
    """Link (or copy, across file systems) each stored file into ``directory`` under ``name(entry)``."""
    directory.mkdir(parents=True, exist_ok=True)
    for entry, source in paths.items():
        target = directory / name(entry)
        try:
            os.link(source, target)
        except OSError:
            shutil.copy2(source, target)
