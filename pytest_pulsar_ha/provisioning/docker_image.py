"""A local Docker image with the official Pulsar image's layout, built once where no registry can be reached.

Users with a registry run the docker backend on the official ``apachepulsar/pulsar:<version>`` image and never
need this. Without one (this project's CI), :func:`ensure_local_pulsar_image` builds
``pytest-pulsar-ha/pulsar:<version>-r2``: a minimal Debian root file system made with ``debootstrap`` (with a Java 17
runtime and libfaketime), the Pulsar distribution the project already fetches copied to ``/pulsar``,
``PULSAR_HOME=/pulsar``, ``docker import``-ed under that tag. The tag is the cache: an image
that is already there is not built again.
:func:`ensure_local_toxiproxy_image` does the same for toxiproxy (the binary at ``/toxiproxy``, as in the official
``ghcr.io/shopify/toxiproxy`` image, with the shared libraries it links).

The Debian mirror is the one in this machine's apt sources (``/etc/apt/sources.list*``); nothing names a host.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from filelock import FileLock

from pytest_pulsar_ha.errors import ProvisioningError
from pytest_pulsar_ha.provisioning.cache import Progress
from pytest_pulsar_ha.provisioning.streaming import run_with_progress

if TYPE_CHECKING:
    import docker

    from pytest_pulsar_ha.provisioning.pulsar_distribution import PulsarDistribution

OFFICIAL_IMAGE = "apachepulsar/pulsar:{version}"


def default_image(version: str) -> str:
    """The official Pulsar image of ``version`` (the docker backend's default)."""
    return OFFICIAL_IMAGE.format(version=version)


LOCAL_PULSAR_IMAGE = "pytest-pulsar-ha/pulsar:{version}-r2"
"""The tag of a local Pulsar image; its ``-rN`` suffix is bumped whenever what the image holds changes, so that an
image built before is not taken for the new one (r2: libfaketime, for clocks a fault moves)."""
LOCAL_TOXIPROXY_IMAGE = "pytest-pulsar-ha/toxiproxy:{version}"
SUITE = "bookworm"
PACKAGES = ("openjdk-17-jre-headless", "procps", "libfaketime")
"""Java for Pulsar, ``ps`` for its scripts, libfaketime for the cluster's clock
(:mod:`pytest_pulsar_ha.runtime.clock`: at the same path as on a Debian host)."""
SOURCES = (Path("/etc/apt/sources.list"), Path("/etc/apt/sources.list.d"))


def local_pulsar_image(version: str) -> str:
    return LOCAL_PULSAR_IMAGE.format(version=version)


def local_toxiproxy_image(version: str) -> str:
    return LOCAL_TOXIPROXY_IMAGE.format(version=version)


def debian_mirror(text: str, suite: str = SUITE) -> str | None:
    """The first Debian archive URL in apt sources text (one-line ``deb URL suite ...`` or deb822 ``URIs:``) that
    serves ``suite`` itself (not ``-security`` or ``-updates``); None if there is none."""
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if len(words) >= 3 and words[0] == "deb":
            rest = [w for w in words[1:] if not w.startswith("[")]
            if len(rest) >= 2 and rest[1] == suite:
                return rest[0]
    for stanza in re.split(r"\n\s*\n", text):
        fields: dict[str, str] = {}
        for line in stanza.splitlines():
            key, sep, value = line.partition(":")
            if sep and not line.startswith((" ", "#")):
                fields[key.strip().lower()] = value.strip()
        if "deb" in fields.get("types", "").split() and suite in fields.get("suites", "").split():
            uris = fields.get("uris", "").split()
            if uris:
                return uris[0]
    return None


def machine_mirror() -> str:
    texts = []
    for source in SOURCES:
        files = sorted(source.glob("*.list")) + sorted(source.glob("*.sources")) if source.is_dir() else [source]
        for path in files:
            with contextlib.suppress(OSError):
                texts.append(path.read_text())
    mirror = debian_mirror("\n\n".join(texts))
    if mirror is None:
        raise ProvisioningError(
            f"no Debian mirror for {SUITE} in this machine's apt sources ({', '.join(map(str, SOURCES))}): the "
            "local image is built with debootstrap from one. With a registry, use the default image instead."
        )
    return mirror


def image_present(client: docker.DockerClient, tag: str) -> bool:
    import docker.errors

    try:
        client.images.get(tag)
    except docker.errors.ImageNotFound:
        return False
    return True


def _import(client: docker.DockerClient, root: Path, tag: str, changes: list[str], progress: Progress) -> None:
    """``tar -C root -c . | docker import`` through the Docker API (no docker CLI needed)."""
    repository, _, version = tag.rpartition(":")
    began = time.monotonic()
    progress(f"importing {root} as {tag}")
    with subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE) as tar:
        if tar.stdout is None:  # pragma: no cover - stdout=PIPE always gives one
            raise ProvisioningError("tar gave no stdout to import from")
        client.api.import_image_from_stream(tar.stdout, repository=repository, tag=version, changes=changes)
    if tar.returncode != 0:
        raise ProvisioningError(f"tar of {root} failed with code {tar.returncode}")
    if not image_present(client, tag):
        raise ProvisioningError(f"docker import of {root} did not leave an image tagged {tag}")
    progress(f"imported {tag} in {time.monotonic() - began:.0f}s")


@contextlib.contextmanager
def _scratch(cache_dir: Path) -> Iterator[Path]:
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix="image-build-", dir=cache_dir))
    try:
        yield path
    finally:
        _unmount_below(path)  # debootstrap mounts proc and sys in the root it builds; a failed run may leave them
        shutil.rmtree(path, ignore_errors=True)


def _unmount_below(path: Path) -> None:
    try:
        mounts = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()]
    except OSError:
        return
    for point in sorted((m for m in mounts if m.startswith(f"{path}/")), key=len, reverse=True):
        subprocess.run(["umount", "-l", point], check=False, capture_output=True)


def ensure_local_pulsar_image(
    client: docker.DockerClient, version: str, distribution_home: Path, cache_dir: Path, progress: Progress
) -> str:
    """The tag of the local Pulsar image of ``version``, built from ``distribution_home`` if it is not there."""
    tag = local_pulsar_image(version)
    if image_present(client, tag):
        return tag
    lock_dir = cache_dir / "docker"
    lock_dir.mkdir(parents=True, exist_ok=True)
    with FileLock(str(lock_dir / "pulsar-image.lock"), timeout=1800):
        if image_present(client, tag):
            return tag
        debootstrap = shutil.which("debootstrap")
        if debootstrap is None or os.geteuid() != 0:
            raise ProvisioningError(
                f"the image {tag} is not there and cannot be built: building it needs root and debootstrap "
                "(apt-get install debootstrap; .ci/docker-engine start installs it). With a registry, use the "
                "default image (apachepulsar/pulsar:<version>) instead."
            )
        mirror = machine_mirror()
        with _scratch(lock_dir) as scratch:
            root = scratch / "rootfs"
            progress(f"building {tag}: debootstrap {SUITE} with {', '.join(PACKAGES)} (about a minute)")
            began = time.monotonic()
            run_with_progress(
                [debootstrap, "--variant=minbase", f"--include={','.join(PACKAGES)}", SUITE, str(root), mirror],
                what="debootstrap",
                progress=progress,
                hint=f"debootstrap needs the Debian mirror of this machine's apt sources ({mirror})",
                min_interval=10.0,
            )
            progress(f"debootstrap done in {time.monotonic() - began:.0f}s; copying Pulsar {version}")
            shutil.rmtree(root / "var" / "cache" / "apt" / "archives", ignore_errors=True)
            shutil.copytree(distribution_home, root / "pulsar", symlinks=True)
            for name in ("data", "logs"):
                (root / "pulsar" / name).mkdir(exist_ok=True)
            _import(client, root, tag, ["WORKDIR /pulsar", "ENV PULSAR_HOME=/pulsar", 'CMD ["bin/pulsar"]'], progress)
    return tag


def _linked_libraries(binary: Path) -> list[Path]:
    """The shared libraries ``binary`` loads (from ``ldd``), with the loader; [] for a static binary."""
    result = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=False)
    return [Path(p) for p in re.findall(r"(/\S+) \(0x", result.stdout)]


def ensure_local_toxiproxy_image(
    client: docker.DockerClient, version: str, binary: Path, cache_dir: Path, progress: Progress
) -> str:
    """The tag of a local toxiproxy image of ``version`` (``/toxiproxy`` as in the official image), built from
    ``binary`` and the libraries it links if it is not there."""
    tag = local_toxiproxy_image(version)
    if image_present(client, tag):
        return tag
    with _scratch(cache_dir / "docker") as scratch:
        root = scratch / "rootfs"
        root.mkdir()
        shutil.copy2(binary, root / "toxiproxy")
        for library in _linked_libraries(binary):
            target = root / library.relative_to("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(library.resolve(), target)
        _import(client, root, tag, ['ENTRYPOINT ["/toxiproxy"]', 'CMD ["-host=0.0.0.0"]'], progress)
    return tag


def build_local_images(
    distribution: PulsarDistribution, toxiproxy_binary: Path, cache_dir: Path, progress: Progress
) -> tuple[str, str]:
    """Both local images (Pulsar and toxiproxy), each built only when its tag is not there yet."""
    from pytest_pulsar_ha.provisioning.docker_engine import connect
    from pytest_pulsar_ha.provisioning.toxiproxy_binary import TOXIPROXY_VERSION

    client = connect()
    try:
        pulsar = ensure_local_pulsar_image(client, distribution.version, distribution.home, cache_dir, progress)
        toxiproxy = ensure_local_toxiproxy_image(client, TOXIPROXY_VERSION, toxiproxy_binary, cache_dir, progress)
    finally:
        client.close()
    return pulsar, toxiproxy
