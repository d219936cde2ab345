"""ControlledClusterFailover (PIP-121) as a ``pulsar.ServiceInfoProvider``: the administrator decides."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from .controlled_config import ConfigurationRejected, ControlledConfiguration
from .deadline_http import DeadlineExceeded, HttpFailure, get
from .durations import Duration, seconds
from .endpoints import ClusterEndpoint
from .events import EventHub, PollEvent, SwitchEvent, SwitchFailedEvent
from .periodic import PeriodicProvider
from .reasons import one_line

log = logging.getLogger("pulsar_ha_providers.controlled")

DEFAULT_MAX_BODY = 64 * 1024


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

    ``request_timeout`` is a deadline for the whole request (connect, redirects, headers, body): an answer not
    complete by then is discarded, never applied late. An answer is validated completely (service URL, auth
    parameters in the Java client's formats, the files they name, the ``pulsar.ServiceInfo`` built) before
    any switch. A bad answer (non-200, time-out, invalid or too deeply nested JSON, no or malformed
    ``serviceUrl``, unknown auth plugin or unusable parameters, oversize body, redirect loop) never switches
    and never stops the loop: it is a failed :class:`PollEvent` with a one-line reason, logged once per
    distinct reason, without secrets or traceback. A switch the client refuses (its update callback raises)
    is published as a :class:`SwitchFailedEvent`, not recorded, and tried again on the next poll.
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
        if max_body_bytes <= 0 or max_redirects < 0:
            raise ValueError("max_body_bytes must be positive and max_redirects not negative")
        self.headers = dict(headers or {})
        self.max_body_bytes = max_body_bytes
        self.max_redirects = max_redirects
        self.events = EventHub()
        self.current = _endpoint_config(default)
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
        """GET the URL provider's answer within ``request_timeout`` and validate it completely."""
        try:
            answer = get(
                self.url_provider,
                headers=self.headers,
                timeout=self.request_timeout,
                max_body=self.max_body_bytes,
                max_redirects=self.max_redirects,
            )
        except DeadlineExceeded as exc:
            raise ConfigurationRejected(
                f"the URL provider did not answer within {self.request_timeout}s ({exc.phase}); answer discarded"
            ) from None
        except HttpFailure as exc:
            raise ConfigurationRejected(str(exc)) from None
        if answer.status != 200:
            raise ConfigurationRejected(f"the URL provider answered HTTP {answer.status}")
        if len(answer.body) > self.max_body_bytes:
            raise ConfigurationRejected(f"the answer is larger than {self.max_body_bytes} bytes")
        return ControlledConfiguration.from_json(answer.body)

    def tick(self, scheduled_at: float | None = None) -> None:
        self.poll()

    def poll(self) -> None:
        """One poll: fetch, validate, switch if the configuration changed (and the client takes it)."""
        try:
            config = self.fetch()
            service_info = config.service_info() if config != self.current else None
        except ConfigurationRejected as exc:
            self._failed_poll(str(exc))
            return
        except Exception as exc:  # a defect, not a bad answer: still one failed poll, never a crashed loop
            self._failed_poll(f"unexpected error while reading the answer: {one_line(exc)}")
            return
        self._logged_errors.clear()
        self.events.publish(PollEvent(True, service_url=config.service_url))
        if service_info is None:
            return
        previous = self.current
        reason = "the URL provider's answer changed"
        try:
            self.switch(service_info)
        except Exception as exc:
            error = one_line(exc)
            log.warning(
                "could not switch from %s to %s: the client refused the update: %s; retrying on the next poll",
                previous.service_url,
                config.service_url,
                error,
            )
            self.events.publish(SwitchFailedEvent(previous.service_url, config.service_url, reason, error))
            return
        self.current = config
        log.warning("switched from %s to %s on the URL provider's answer", previous.service_url, config.service_url)
        self.events.publish(SwitchEvent(previous.service_url, config.service_url, reason))

    def _failed_poll(self, reason: str) -> None:
        self.events.publish(PollEvent(False, error=reason))
        if reason not in self._logged_errors:
            self._logged_errors.add(reason)
            log.warning("ignoring the URL provider's answer (%s): %s", self.url_provider, reason)
