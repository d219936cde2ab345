"""A minimal client of Pulsar's admin REST API (v2), for the harness's own bookkeeping."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from pytest_pulsar_ha.errors import AdminError


class AdminClient:
    def __init__(self, base_url: str, timeout: float = 30.0, token: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.token = token

    def call(self, method: str, path: str, payload: Any = None) -> Any:
        url = f"{self.base_url}/admin/v2/{path.lstrip('/')}"
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        data = json.dumps(payload).encode() if payload is not None else None
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = response.read().decode()
        except urllib.error.HTTPError as exc:
            raise AdminError(method, url, exc.code, exc.read().decode(errors="replace")) from exc
        if not body.strip():
            return None
        try:
            return json.loads(body)
        except ValueError:
            return body

    def get_raw(self, path: str) -> tuple[int, dict[str, str], bytes]:
        """GET without decoding: (status, headers, body); HTTP errors are returned, not raised."""
        url = f"{self.base_url}/admin/v2/{path.lstrip('/')}"
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {self.token}"} if self.token else {})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return int(response.status), dict(response.headers.items()), response.read()
        except urllib.error.HTTPError as exc:
            return int(exc.code), dict(exc.headers.items()), exc.read()

    def get(self, path: str) -> Any:
        return self.call("GET", path)

    def put(self, path: str, payload: Any = None) -> Any:
        return self.call("PUT", path, payload)

    def post(self, path: str, payload: Any = None) -> Any:
        return self.call("POST", path, payload)

    def delete(self, path: str) -> Any:
        return self.call("DELETE", path)
