"""The URL provider's answer (PIP-121 ``ControlledConfiguration``): parsing, validation, credentials."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

TOKEN_PLUGINS = {"org.apache.pulsar.client.impl.auth.AuthenticationToken", "token"}
TLS_PLUGINS = {"org.apache.pulsar.client.impl.auth.AuthenticationTls", "tls"}
BASIC_PLUGINS = {"org.apache.pulsar.client.impl.auth.AuthenticationBasic", "basic"}
OAUTH2_PLUGINS = {"org.apache.pulsar.client.impl.auth.oauth2.AuthenticationOAuth2", "oauth2"}
KNOWN_PLUGINS = TOKEN_PLUGINS | TLS_PLUGINS | BASIC_PLUGINS | OAUTH2_PLUGINS


class ConfigurationRejected(Exception):
    """The URL provider's answer cannot be applied; the message says why and never holds secrets."""


@dataclass(frozen=True)
class ControlledConfiguration:
    service_url: str
    tls_trust_certs_file_path: str | None = None
    auth_plugin_class_name: str | None = None
    auth_params_string: str | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        secret = "'***'" if self.auth_params_string else "None"
        return (
            f"ControlledConfiguration(service_url={self.service_url!r}, "
            f"tls_trust_certs_file_path={self.tls_trust_certs_file_path!r}, "
            f"auth_plugin_class_name={self.auth_plugin_class_name!r}, auth_params_string={secret})"
        )

    __str__ = __repr__

    @classmethod
    def from_json(cls, body: bytes) -> ControlledConfiguration:
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError) as exc:
            where = f" at line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
            raise ConfigurationRejected(f"the answer is not valid JSON{where}") from None
        if not isinstance(data, dict):
            raise ConfigurationRejected(f"the answer is JSON {type(data).__name__}, expected an object")
        url = data.get("serviceUrl")
        if not isinstance(url, str) or not url.strip():
            raise ConfigurationRejected("the answer has no serviceUrl (missing or empty)")
        parsed = urlparse(url)
        if parsed.scheme not in ("pulsar", "pulsar+ssl") or not parsed.hostname:
            raise ConfigurationRejected(f"serviceUrl {url!r} is not a pulsar:// or pulsar+ssl:// URL")
        config = cls(
            service_url=url.strip(),
            tls_trust_certs_file_path=_optional_text(data, "tlsTrustCertsFilePath"),
            auth_plugin_class_name=_optional_text(data, "authPluginClassName"),
            auth_params_string=_optional_text(data, "authParamsString"),
        )
        config.authentication()  # reject unknown plugins and unusable parameters now
        return config

    def authentication(self) -> Any:
        """The ``pulsar.Authentication`` this configuration names, or None."""
        plugin, params = self.auth_plugin_class_name, self.auth_params_string or ""
        if not plugin:
            return None
        if plugin not in KNOWN_PLUGINS:
            raise ConfigurationRejected(
                f"unknown authPluginClassName {plugin!r}; supported: token, tls, basic, oauth2 "
                "(or their org.apache.pulsar.client.impl.auth class names)"
            )
        import pulsar

        if plugin in TOKEN_PLUGINS:
            return pulsar.AuthenticationToken(_token(params))
        if plugin in TLS_PLUGINS:
            parts = dict(p.split(":", 1) for p in params.split(",") if ":" in p)
            if "tlsCertFile" not in parts or "tlsKeyFile" not in parts:
                raise ConfigurationRejected("AuthenticationTls needs authParamsString tlsCertFile:...,tlsKeyFile:...")
            return pulsar.AuthenticationTLS(parts["tlsCertFile"], parts["tlsKeyFile"])
        if plugin in BASIC_PLUGINS:
            return pulsar.AuthenticationBasic(auth_params_string=params)
        return pulsar.AuthenticationOauth2(params)

    def service_info(self) -> Any:
        import pulsar

        return pulsar.ServiceInfo(self.service_url, self.authentication(), self.tls_trust_certs_file_path)


def _optional_text(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ConfigurationRejected(f"{key} must be a string, found {type(value).__name__}")
    return value


def _token(params: str) -> str:
    """Token parameters as the Java client accepts them: ``token:<jwt>``, ``file:<path>`` or the bare token."""
    if params.startswith("token:"):
        token = params.removeprefix("token:")
    elif params.startswith("file:"):
        path = params.removeprefix("file:").removeprefix("//")
        try:
            token = Path(path).read_text().strip()
        except OSError as exc:
            raise ConfigurationRejected(f"token file {path} cannot be read: {exc.strerror}") from None
    else:
        token = params
    if not token:
        raise ConfigurationRejected("AuthenticationToken needs a token in authParamsString")
    return token
