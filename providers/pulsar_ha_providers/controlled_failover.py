"""ControlledClusterFailover (PIP-121) as a ``pulsar.ServiceInfoProvider``: the administrator decides."""

from __future__ import annotations

import logging
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any

from .controlled_config import ConfigurationRejected, ControlledConfiguration
from .durations import Duration, seconds
from .endpoints import ClusterEndpoint
from .events import EventHub, PollEvent, SwitchEvent
from .periodic import PeriodicProvider

log = logging.getLogger("pulsar_ha_providers.controlled")

DEFAULT_MAX_BODY = 64 * 1024


def _redirect_handler(limit: int) -> urllib.request.HTTPRedirectHandler:
    handler = urllib.request.HTTPRedirectHandler()
    handler.max_redirections = limit  # type: ignore[misc]
    handler.max_repeats = 2  # type: ignore[misc]
    return handler


def _endpoint_config(endpoint: ClusterEndpoint) -> ControlledConfiguration:
    return ControlledConfiguration(
        endpoint.service_url,
        endpoint.tls_trust_certs_file_path,
        "org.apache.pulsar.client.impl.auth.AuthenticationToken" if endpoint.token else None,
        f"token:{endpoint.token}" if endpoint.token else None,
    )


class ControlledClusterFailover(PeriodicProvider):
    """Poll ``url_provider`` every ``check_interval``; switch (without a health check) when its answer changes.

    The answer is the PIP-121 JSON (``serviceUrl``, ``tlsTrustCertsFilePath``, ``authPluginClassName``,
    ``authParamsString``). An answer equal to the configuration in use does nothing, the first one included.
    A bad answer (non-200, time-out, invalid JSON, no ``serviceUrl``, unknown auth plugin, oversize body,
    redirect loop) never switches and never stops the loop; each distinct error is logged once, without
    secrets.
    """

    def __init__(
        self,
        default: ClusterEndpoint,
        url_provider: str,
        *,
        check_interval: Duration = "1s",
        headers: Mapping[str, str] | None = None,
        request_timeout: Duration | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY,
        max_redirects: int = 5,
    ) -> None:
        super().__init__()
        self.default = default
        self.url_provider = url_provider
        self.check_interval = seconds(check_interval, "check_interval")
        if self.check_interval <= 0:
            raise ValueError("check_interval must be positive")
        default_timeout = min(self.check_interval * 0.8, 10.0)
        self.request_timeout = (
            seconds(request_timeout, "request_timeout") if request_timeout is not None else default_timeout
        )
        if not 0 < self.request_timeout < self.check_interval:
            raise ValueError("request_timeout must be positive and below check_interval")
        self.headers = dict(headers or {})
        self.max_body_bytes = max_body_bytes
        self.events = EventHub()
        self.current = _endpoint_config(default)
        self._opener = urllib.request.build_opener(_redirect_handler(max_redirects))
        self._logged_errors: set[str] = set()
        self.interval = self.check_interval
        self.thread_name = "pulsar-ha-controlled-failover"

    def __repr__(self) -> str:
        return (
            f"ControlledClusterFailover(url_provider={self.url_provider!r}, current={self.current.service_url!r}, "
            f"check_interval={self.check_interval}s)"
        )

    def initial_service_info(self) -> Any:
        return self.default.service_info()

    def fetch(self) -> ControlledConfiguration:
        request = urllib.request.Request(self.url_provider, headers=self.headers)
        try:
            with self._opener.open(request, timeout=self.request_timeout) as response:
                if response.status != 200:
                    raise ConfigurationRejected(f"the URL provider answered HTTP {response.status}")
                body = response.read(self.max_body_bytes + 1)
        except urllib.error.HTTPError as exc:
            if 300 <= exc.code < 400:
                raise ConfigurationRejected(f"the URL provider redirects too often (HTTP {exc.code})") from None
            raise ConfigurationRejected(f"the URL provider answered HTTP {exc.code}") from None
        except TimeoutError:
            raise ConfigurationRejected(f"the URL provider did not answer within {self.request_timeout}s") from None
        except urllib.error.URLError as exc:
            raise ConfigurationRejected(f"the URL provider is unreachable: {exc.reason}") from None
        except OSError as exc:
            raise ConfigurationRejected(f"the URL provider connection failed: {exc}") from None
        if len(body) > self.max_body_bytes:
            raise ConfigurationRejected(f"the answer is larger than {self.max_body_bytes} bytes")
        return ControlledConfiguration.from_json(body)

    def tick(self) -> None:
        self.poll()

    def poll(self) -> None:
        """One poll: fetch, validate, switch if the configuration changed."""
        try:
            config = self.fetch()
        except ConfigurationRejected as exc:
            reason = str(exc)
            self.events.publish(PollEvent(False, error=reason))
            if reason not in self._logged_errors:
                self._logged_errors.add(reason)
                log.warning("ignoring the URL provider's answer (%s): %s", self.url_provider, reason)
            return
        self._logged_errors.clear()
        self.events.publish(PollEvent(True, service_url=config.service_url))
        if config == self.current:
            return
        previous = self.current
        log.warning("switching from %s to %s on the URL provider's answer", previous.service_url, config.service_url)
        self.switch(config.service_info())
        self.current = config
        self.events.publish(SwitchEvent(previous.service_url, config.service_url, "the URL provider's answer changed"))
