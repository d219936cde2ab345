"""An admin client over several brokers of one cluster: a call goes to the first broker that answers."""

from __future__ import annotations

import threading
import urllib.error
from collections.abc import Sequence
from typing import Any

from pytest_pulsar_ha.admin.client import AdminClient


class FailoverAdminClient(AdminClient):
    """Like :class:`AdminClient`, but a broker that cannot be reached (killed, refused, timed out) is skipped.

    HTTP errors are answers, not failures: they are raised as :class:`~pytest_pulsar_ha.errors.AdminError`
    from the broker that gave them. The broker that answered last is tried first next time.
    """

    def __init__(self, base_urls: Sequence[str], timeout: float = 30.0, token: str | None = None) -> None:
        if not base_urls:
            raise ValueError("FailoverAdminClient needs at least one broker URL")
        super().__init__(base_urls[0], timeout=timeout, token=token)
        self._clients = [AdminClient(url, timeout=timeout, token=token) for url in base_urls]
        self._preferred = 0
        self._lock = threading.Lock()

    @property
    def base_urls(self) -> list[str]:
        return [client.base_url for client in self._clients]

    def _order(self) -> list[int]:
        with self._lock:
            first = self._preferred
        return [first] + [i for i in range(len(self._clients)) if i != first]

    def _first_answer(self, method: str, attempt: Any) -> Any:
        errors = []
        for i in self._order():
            try:
                result = attempt(self._clients[i])
            except (urllib.error.URLError, OSError) as exc:  # HTTPError is turned into AdminError before this
                errors.append(f"{self._clients[i].base_url}: {exc}")
                continue
            with self._lock:
                self._preferred = i
            return result
        raise OSError(f"{method}: no broker of the cluster answered ({'; '.join(errors)})")

    def call(self, method: str, path: str, payload: Any = None) -> Any:
        return self._first_answer(f"{method} {path}", lambda client: client.call(method, path, payload))

    def get_raw(self, path: str) -> tuple[int, dict[str, str], bytes]:
        return self._first_answer(f"GET {path}", lambda client: client.get_raw(path))  # type: ignore[no-any-return]
