"""``authPluginClassName`` + ``authParamsString`` of a URL provider's answer -> a ``pulsar.Authentication``.

The parameters are read in the formats the Java client accepts (so one URL provider serves Java and Python
clients), then validated completely (files readable, required keys present, URLs well formed) and translated
to the Python client's own forms. Anything wrong raises :class:`ConfigurationRejected` with a one-line reason
that never repeats the parameters (they hold secrets).

=========  ==========================================================================================
plugin     accepted ``authParamsString`` (Java class ``org.apache.pulsar.client.impl.auth...``)
=========  ==========================================================================================
token      ``token:<jwt>``, ``data:<jwt>``, ``file:///abs/path``, ``env:VARIABLE`` or the bare token
           (``AuthenticationToken.configure``)
tls        ``tlsCertFile:/abs/cert.pem,tlsKeyFile:/abs/key.pem`` or the same keys as a JSON object
           (``AuthenticationTls.configure``: JSON first, then the ``key:value,...`` form)
basic      JSON ``{"userId": ..., "password": ...}`` only (``AuthenticationBasic.configure`` parses JSON;
           ``user:password`` is not a Java format)
oauth2     JSON with ``issuerUrl`` and ``privateKey`` (required), ``audience``, ``scope``, ``type``
           (``client_credentials`` only), ``connectTimeout``/``readTimeout`` (ISO-8601 durations)
           (``AuthenticationOAuth2.configure`` / ``ClientCredentialsFlow.fromParameters``); ``privateKey``
           must be ``file:///abs/key.json`` or ``data:application/json;base64,...``: the only forms the
           Python (C++) client reads
=========  ==========================================================================================

All values of the JSON forms must be strings (Java's Jackson/Gson would coerce numbers; we refuse them).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from .controlled_errors import ConfigurationRejected
from .credential_files import check_readable_file, read_small_file
from .reasons import one_line

IMPL = "org.apache.pulsar.client.impl.auth."
PLUGINS = {
    "token": "token",
    IMPL + "AuthenticationToken": "token",
    "tls": "tls",
    IMPL + "AuthenticationTls": "tls",
    "basic": "basic",
    IMPL + "AuthenticationBasic": "basic",
    "oauth2": "oauth2",
    IMPL + "oauth2.AuthenticationOAuth2": "oauth2",
}
DATA_KEY_PREFIX = "data:application/json;base64,"
_ISO_DURATION = re.compile(  # java.time.Duration.parse: PnDTnHnMn.nS
    r"^[-+]?P(?:[-+]?[0-9]+D)?(?:T(?:[-+]?[0-9]+H)?(?:[-+]?[0-9]+M)?(?:[-+]?[0-9]+(?:[.,][0-9]{0,9})?S)?)?$", re.I
)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def plugin_kind(plugin: str) -> str:
    try:
        return PLUGINS[plugin]
    except KeyError:
        shown = plugin if len(plugin) <= 120 else plugin[:120] + "..."
        raise ConfigurationRejected(
            f"unknown authPluginClassName {shown!r}; supported: token, tls, basic, oauth2 "
            "(or their org.apache.pulsar.client.impl.auth class names)"
        ) from None


def authentication(plugin: str | None, params: str) -> Any:
    """The ``pulsar.Authentication`` for these answer fields (None without a plugin), fully validated."""
    if not plugin:
        return None  # as in the Java client: parameters without a plugin are ignored
    builder = {"token": _token, "tls": _tls, "basic": _basic, "oauth2": _oauth2}[plugin_kind(plugin)]
    return builder(params)


def _build(what: str, make: Callable[[], Any], secrets: tuple[str, ...]) -> Any:
    """Call the Python client's constructor; whatever it raises becomes a rejection without the secrets."""
    try:
        return make()
    except Exception as exc:
        reason = one_line(exc)
        for secret in secrets:
            if secret:
                reason = reason.replace(secret, "***")
        raise ConfigurationRejected(f"the Python client refused the {what} parameters: {reason}") from None


# -- token -------------------------------------------------------------------------------------------------


def _token(params: str) -> Any:
    if params.startswith("token:"):
        token = params.removeprefix("token:")
    elif params.startswith("data:"):
        token = params.removeprefix("data:")
    elif params.startswith("file:"):
        path = params.removeprefix("file:")
        path = path[2:] if path.startswith("//") else path
        data = read_small_file(path, "the token file")
        try:
            token = data.decode().strip()
        except UnicodeDecodeError:
            raise ConfigurationRejected(f"the token file {path!r} is not UTF-8 text") from None
        if not token:
            raise ConfigurationRejected(f"the token file {path!r} is empty")
    elif params.startswith("env:"):
        name = params.removeprefix("env:")
        token = os.environ.get(name, "") if name and "\x00" not in name and "=" not in name else ""
        if not token:
            raise ConfigurationRejected("the environment variable named by authParamsString env:... is not set")
    else:
        token = params
    if not token:
        raise ConfigurationRejected("AuthenticationToken needs a token in authParamsString (token:<jwt>)")
    if _CONTROL.search(token):
        raise ConfigurationRejected("the token of AuthenticationToken contains control characters")
    import pulsar

    return _build("AuthenticationToken", lambda: pulsar.AuthenticationToken(token), (token, params))


# -- tls ---------------------------------------------------------------------------------------------------


def _pulsar1_params(params: str) -> dict[str, str]:
    """``key:value,key:value`` as ``AuthenticationUtil.configureFromPulsar1AuthParamString`` splits it."""
    out: dict[str, str] = {}
    for part in params.split(","):
        key, colon, value = part.partition(":")
        if colon and key:
            out[key] = value
    return out


def _json_object(params: str, what: str, shape: str) -> dict[str, str]:
    try:
        data = json.loads(params)
    except (ValueError, RecursionError):
        raise ConfigurationRejected(f"{what} needs authParamsString as a JSON object {shape}") from None
    if not isinstance(data, dict):
        raise ConfigurationRejected(f"{what} needs authParamsString as a JSON object {shape}")
    wrong = sorted(k for k, v in data.items() if not isinstance(v, str))
    if wrong:
        raise ConfigurationRejected(f"{what} parameters must be strings: {', '.join(map(repr, wrong[:5]))}")
    return data


def _tls(params: str) -> Any:
    if params.lstrip().startswith("{"):
        values = _json_object(params, "AuthenticationTls", '{"tlsCertFile": ..., "tlsKeyFile": ...}')
    else:
        values = _pulsar1_params(params)
    cert, key = values.get("tlsCertFile", ""), values.get("tlsKeyFile", "")
    if not cert or not key:
        raise ConfigurationRejected(
            "AuthenticationTls needs tlsCertFile and tlsKeyFile in authParamsString "
            "(tlsCertFile:/path/cert.pem,tlsKeyFile:/path/key.pem or the same as JSON)"
        )
    check_readable_file(cert, "the TLS client certificate (tlsCertFile)")
    check_readable_file(key, "the TLS client key (tlsKeyFile)")
    import pulsar

    return _build("AuthenticationTls", lambda: pulsar.AuthenticationTLS(cert, key), ())


# -- basic -------------------------------------------------------------------------------------------------


def _basic(params: str) -> Any:
    values = _json_object(params, "AuthenticationBasic", '{"userId": ..., "password": ...}')
    user, password = values.get("userId"), values.get("password")
    if not user or password is None:
        raise ConfigurationRejected('AuthenticationBasic needs userId and password: {"userId": ..., "password": ...}')
    import pulsar

    return _build(
        "AuthenticationBasic",
        lambda: pulsar.AuthenticationBasic(username=user, password=password),
        (password, params),
    )


# -- oauth2 ------------------------------------------------------------------------------------------------


def _oauth2(params: str) -> Any:
    shape = '{"issuerUrl": "https://...", "privateKey": "file:///path/key.json", "audience": ..., "scope": ...}'
    if not params.strip():
        raise ConfigurationRejected(f"AuthenticationOAuth2 needs authParamsString as a JSON object {shape}")
    values = _json_object(params, "AuthenticationOAuth2", shape)
    flow = values.get("type", "client_credentials")
    if flow != "client_credentials":
        raise ConfigurationRejected(f"unsupported OAuth2 type {flow[:40]!r}: only client_credentials")
    issuer = values.get("issuerUrl", "")
    if not issuer:
        raise ConfigurationRejected("AuthenticationOAuth2 needs issuerUrl")
    try:
        parts = urlsplit(issuer)
        has_host = bool(parts.hostname)
    except ValueError:
        parts, has_host = None, False
    if parts is None or parts.scheme not in ("http", "https") or not has_host or _CONTROL.search(issuer):
        raise ConfigurationRejected("AuthenticationOAuth2 issuerUrl is not an http:// or https:// URL")
    key = values.get("privateKey", "")
    if not key:
        raise ConfigurationRejected("AuthenticationOAuth2 needs privateKey (file:///path/key.json or data: URL)")
    _check_key_file(key)
    for name in ("connectTimeout", "readTimeout", "autoCertRefreshDuration"):
        if values.get(name) and not _ISO_DURATION.match(values[name]):
            raise ConfigurationRejected(f"AuthenticationOAuth2 {name} is not an ISO-8601 duration such as PT10S")
    if values.get("trustCertsFilePath"):
        check_readable_file(values["trustCertsFilePath"], "the OAuth2 trustCertsFilePath")
    native = {"type": "client_credentials", "issuer_url": issuer, "private_key": key}
    native |= {k: values[k] for k in ("audience", "scope") if k in values}
    import pulsar

    return _build("AuthenticationOAuth2", lambda: pulsar.AuthenticationOauth2(json.dumps(native)), (key, params))


def _check_key_file(key: str) -> None:
    """The OAuth2 key file (``client_id`` and ``client_secret``), read now so a bad one never switches."""
    if key.startswith("file://"):
        content = read_small_file(key.removeprefix("file://"), "the OAuth2 privateKey file")
    elif key.startswith(DATA_KEY_PREFIX):
        try:
            content = base64.b64decode(key.removeprefix(DATA_KEY_PREFIX), validate=True)
        except (binascii.Error, ValueError):
            raise ConfigurationRejected("the OAuth2 privateKey data: URL is not valid base64") from None
    else:
        raise ConfigurationRejected(
            "the OAuth2 privateKey must be file:///path/key.json or data:application/json;base64,... "
            "(the Python client reads no other form)"
        )
    try:
        data = json.loads(content)
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in ("client_id", "client_secret")):
        raise ConfigurationRejected("the OAuth2 privateKey is not a JSON key file with client_id and client_secret")
