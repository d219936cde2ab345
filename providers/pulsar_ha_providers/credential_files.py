"""Reading a file a URL provider's answer names (token, key, certificate): regular files only, size-bounded.

An answer is untrusted input: a path such as ``/dev/zero``, a FIFO or a directory must be refused, not read.
"""

from __future__ import annotations

import os
import stat

from .controlled_errors import ConfigurationRejected

MAX_CREDENTIAL_FILE = 1024 * 1024


def check_readable_file(path: str, what: str) -> os.stat_result:
    """Raise unless ``path`` is an absolute path to a regular file this process may read."""
    if not path or "\x00" in path:
        raise ConfigurationRejected(f"{what} has an empty or invalid path")
    if not os.path.isabs(path):
        raise ConfigurationRejected(f"{what} {path!r} is not an absolute path")
    try:
        info = os.stat(path)
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise ConfigurationRejected(f"{what} {path!r} cannot be read: {reason}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ConfigurationRejected(f"{what} {path!r} is not a regular file")
    if not os.access(path, os.R_OK):
        raise ConfigurationRejected(f"{what} {path!r} cannot be read: permission denied")
    return info


def read_small_file(path: str, what: str, limit: int = MAX_CREDENTIAL_FILE) -> bytes:
    """The content of a regular file of at most ``limit`` bytes, or :class:`ConfigurationRejected`."""
    info = check_readable_file(path, what)
    if info.st_size > limit:
        raise ConfigurationRejected(f"{what} {path!r} is larger than {limit} bytes")
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise ConfigurationRejected(f"{what} {path!r} cannot be read: {exc.strerror}") from None
    if len(data) > limit:
        raise ConfigurationRejected(f"{what} {path!r} is larger than {limit} bytes")
    return data
