"""The URL provider's answer (PIP-121 ``ControlledConfiguration``): parsing and complete validation.

:meth:`ControlledConfiguration.from_json` either returns a configuration the client can be switched to (its
``pulsar.ServiceInfo`` has been built once already) or raises :class:`ConfigurationRejected` with a one-line
reason: never another exception, whatever the bytes (deeply nested JSON, huge numbers, wrong types, malformed
service URLs or auth parameters, paths to devices...).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .auth_params import authentication as build_authentication
from .auth_params import plugin_kind
from .controlled_errors import ConfigurationRejected
from .credential_files import check_readable_file
from .reasons import one_line
from .service_urls import validate_service_url

__all__ = ["ConfigurationRejected", "ControlledConfiguration"]

FIELDS = ("serviceUrl", "tlsTrustCertsFilePath", "authPluginClassName", "authParamsString")


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
        """Parse and validate an answer completely; raise :class:`ConfigurationRejected` on anything wrong."""
        data = _parse(body)
        url = data.get("serviceUrl")
        if url is None or url == "" or (isinstance(url, str) and not url.strip()):
            raise ConfigurationRejected("the answer has no serviceUrl (missing or empty)")
        if not isinstance(url, str):
            raise ConfigurationRejected(f"serviceUrl must be a string, found {type(url).__name__}")
        config = cls(
            service_url=validate_service_url(url.strip()),
            tls_trust_certs_file_path=_optional_text(data, "tlsTrustCertsFilePath"),
            auth_plugin_class_name=_optional_text(data, "authPluginClassName"),
            auth_params_string=_optional_text(data, "authParamsString"),
        )
        if config.auth_plugin_class_name:
            plugin_kind(config.auth_plugin_class_name)
        if config.tls_trust_certs_file_path:
            check_readable_file(config.tls_trust_certs_file_path, "tlsTrustCertsFilePath")
        config.service_info()  # everything the switch will need, built once now
        return config

    def authentication(self) -> Any:
        """The ``pulsar.Authentication`` this configuration names, or None; raises ConfigurationRejected."""
        return build_authentication(self.auth_plugin_class_name, self.auth_params_string or "")

    def service_info(self) -> Any:
        """The ``pulsar.ServiceInfo`` to switch to; raises ConfigurationRejected if the client refuses it."""
        import pulsar

        auth = self.authentication()
        try:
            return pulsar.ServiceInfo(self.service_url, auth, self.tls_trust_certs_file_path)
        except Exception as exc:
            raise ConfigurationRejected(f"the Python client refused the service URL: {one_line(exc)}") from None


def _parse(body: bytes) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except RecursionError:
        raise ConfigurationRejected("the answer nests JSON too deeply to parse") from None
    except (ValueError, UnicodeDecodeError, TypeError) as exc:
        where = f" at line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise ConfigurationRejected(f"the answer is not valid JSON{where}") from None
    if not isinstance(data, dict):
        raise ConfigurationRejected(f"the answer is JSON {type(data).__name__}, expected an object")
    return data


def _optional_text(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ConfigurationRejected(f"{key} must be a string, found {type(value).__name__}")
    return value
