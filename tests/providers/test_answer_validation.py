"""Validation of a URL-provider answer before any switch: service URLs and every auth plugin's parameters.

The accepted formats are the Java client's (``AuthenticationToken.configure``, ``AuthenticationTls.configure``:
JSON or ``key:value,...``, ``AuthenticationBasic.configure``: JSON ``userId``/``password`` only,
``AuthenticationOAuth2.configure``: JSON, ``issuerUrl`` and ``privateKey`` required), so one URL provider can
serve Java and Python clients alike.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pulsar
import pytest

from pulsar_ha_providers.controlled_config import ConfigurationRejected, ControlledConfiguration

SECRET = "s3cr3t-value"


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("credentials")
    (root / "token").write_text(f"{SECRET}\n")
    (root / "empty").write_text("")
    (root / "cert.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    (root / "key.pem").write_text("-----BEGIN PRIVATE KEY-----\n")
    (root / "oauth.json").write_text(json.dumps({"client_id": "id", "client_secret": SECRET}))
    (root / "oauth-bad.json").write_text('{"client_id": "id"}')
    return {p.name: str(p) for p in root.iterdir()} | {"dir": str(root)}


def answer(plugin: str | None, params: str | None, url: str = "pulsar://127.0.0.1:6650") -> bytes:
    data: dict[str, str] = {"serviceUrl": url}
    if plugin is not None:
        data["authPluginClassName"] = plugin
    if params is not None:
        data["authParamsString"] = params
    return json.dumps(data).encode()


def fill(params: str, files: dict[str, str]) -> str:
    """Replace each ``<name>`` with the path of that credentials file."""
    for name, path in files.items():
        params = params.replace(f"<{name}>", path)
    return params


def oauth(**fields: object) -> str:
    return json.dumps(fields)


ACCEPTED = {
    "token-prefixed": ("token", "token:" + SECRET, pulsar.AuthenticationToken),
    "token-bare": ("org.apache.pulsar.client.impl.auth.AuthenticationToken", SECRET, pulsar.AuthenticationToken),
    "token-data": ("token", "data:" + SECRET, pulsar.AuthenticationToken),
    "token-file-uri": ("token", "file://<token>", pulsar.AuthenticationToken),
    "token-env": ("token", "env:PULSAR_HA_TEST_TOKEN", pulsar.AuthenticationToken),
    "tls-pairs": ("tls", "tlsCertFile:<cert.pem>,tlsKeyFile:<key.pem>", pulsar.AuthenticationTLS),
    "tls-json": (
        "org.apache.pulsar.client.impl.auth.AuthenticationTls",
        '{"tlsCertFile": "<cert.pem>", "tlsKeyFile": "<key.pem>"}',
        pulsar.AuthenticationTLS,
    ),
    "basic-json": ("basic", json.dumps({"userId": "app", "password": SECRET}), pulsar.AuthenticationBasic),
    "oauth2-file-key": (
        "oauth2",
        '{"issuerUrl": "https://auth.example.com/", "privateKey": "file://<oauth.json>", "audience": "urn:pulsar"}',
        pulsar.AuthenticationOauth2,
    ),
    "oauth2-data-key": (
        "org.apache.pulsar.client.impl.auth.oauth2.AuthenticationOAuth2",
        oauth(
            type="client_credentials",
            issuerUrl="https://auth.example.com",
            privateKey="data:application/json;base64,"
            + base64.b64encode(json.dumps({"client_id": "i", "client_secret": SECRET}).encode()).decode(),
            audience="urn:pulsar",
            scope="produce consume",
        ),
        pulsar.AuthenticationOauth2,
    ),
}


@pytest.mark.parametrize("case", ACCEPTED)
def test_every_plugin_accepts_the_java_client_formats(
    case: str, files: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PULSAR_HA_TEST_TOKEN", SECRET)
    plugin, params, auth_type = ACCEPTED[case]
    params = fill(params, files)
    config = ControlledConfiguration.from_json(answer(plugin, params))
    info = config.service_info()
    assert isinstance(info, pulsar.ServiceInfo)
    assert isinstance(config.authentication(), auth_type)
    assert SECRET not in repr(config)


REJECTED = {
    "token-empty": ("token", "token:", "needs a token"),
    "token-file-missing": ("token", "file:///nonexistent/pulsar-ha/token", "cannot be read"),
    "token-file-empty": ("token", "file://<empty>", "is empty"),
    "token-file-a-device": ("token", "file:///dev/zero", "not a regular file"),
    "token-file-a-directory": ("token", "file://<dir>", "not a regular file"),
    "token-env-unset": ("token", "env:PULSAR_HA_NO_SUCH_VARIABLE", "is not set"),
    "token-control-chars": ("token", "token:abc\ndef", "control characters"),
    "tls-empty": ("tls", "", "needs tlsCertFile and tlsKeyFile"),
    "tls-no-key": ("tls", "tlsCertFile:<cert.pem>", "needs tlsCertFile and tlsKeyFile"),
    "tls-missing-file": ("tls", "tlsCertFile:/nonexistent/c.pem,tlsKeyFile:<key.pem>", "cannot be read"),
    "tls-json-not-strings": ("tls", '{"tlsCertFile": ["<cert.pem>"], "tlsKeyFile": 1}', "must be strings"),
    "basic-colon-form": ("basic", "app:" + SECRET, "JSON object"),
    "basic-garbage": ("basic", SECRET, "JSON object"),
    "basic-no-password": ("basic", '{"userId": "app"}', "needs userId and password"),
    "basic-cpp-keys": ("basic", json.dumps({"username": "app", "password": SECRET}), "needs userId and password"),
    "basic-not-strings": ("basic", '{"userId": ["app"], "password": {}}', "must be strings"),
    "oauth2-empty": ("oauth2", "", "JSON object"),
    "oauth2-garbage": ("oauth2", SECRET, "JSON object"),
    "oauth2-truncated": ("oauth2", '{"issuerUrl": "https://a', "JSON object"),
    "oauth2-no-issuer": ("oauth2", oauth(privateKey="file://<oauth.json>"), "needs issuerUrl"),
    "oauth2-no-key": ("oauth2", oauth(issuerUrl="https://a.example"), "needs privateKey"),
    "oauth2-bad-issuer": ("oauth2", oauth(issuerUrl="not a url", privateKey="file://<oauth.json>"), "issuerUrl"),
    "oauth2-unknown-type": (
        "oauth2",
        oauth(type="authorization_code", issuerUrl="https://a.example", privateKey="file://<oauth.json>"),
        "unsupported OAuth2 type",
    ),
    "oauth2-http-key": ("oauth2", oauth(issuerUrl="https://a.example", privateKey="https://k.example/k"), "file://"),
    "oauth2-key-missing": ("oauth2", oauth(issuerUrl="https://a.example", privateKey="file:///nonexistent/k"), "read"),
    "oauth2-key-without-secret": (
        "oauth2",
        oauth(issuerUrl="https://a.example", privateKey="file://<oauth-bad.json>"),
        "client_id and client_secret",
    ),
    "oauth2-bad-data-key": (
        "oauth2",
        oauth(issuerUrl="https://a.example", privateKey="data:application/json;base64,%%%"),
        "privateKey",
    ),
    "oauth2-nested-value": ("oauth2", '{"issuerUrl": {"a": 1}, "privateKey": "x"}', "must be strings"),
    "oauth2-bad-duration": (
        "oauth2",
        oauth(issuerUrl="https://a.example", privateKey="file://<oauth.json>", connectTimeout="ten seconds"),
        "connectTimeout",
    ),
}


@pytest.mark.parametrize("case", REJECTED)
def test_malformed_auth_params_are_rejected_before_any_switch_without_echoing_them(
    case: str, files: dict[str, str]
) -> None:
    plugin, params, message = REJECTED[case]
    params = fill(params, files)
    with pytest.raises(ConfigurationRejected) as info:
        ControlledConfiguration.from_json(answer(plugin, params))
    assert message in str(info.value)
    assert SECRET not in str(info.value) and "\n" not in str(info.value)


GOOD_URLS = [
    "pulsar://broker.example.com:6650",
    "pulsar+ssl://broker.example.com:6651",
    "pulsar://h1.example:6650,h2.example:6650,10.0.0.3:6650",
    "pulsar://broker",  # the client defaults the port (6650 / 6651)
    "pulsar://broker:6650/",
]


@pytest.mark.parametrize("url", GOOD_URLS)
def test_valid_service_urls_are_accepted(url: str) -> None:
    assert ControlledConfiguration.from_json(answer(None, None, url)).service_info() is not None


BAD_URLS = {
    "pulsar://h:66x0": "port '66x0'",
    "pulsar://h:0": "port '0'",
    "pulsar://h:65536": "port '65536'",
    "pulsar://h:-1": "port '-1'",
    "pulsar://h:+80": "port '+80'",
    "pulsar://h:\u0666\u0666\u0665\u0660": "port",  # Arabic-Indic digits: int() takes them, a URL does not
    "pulsar://h1:6650,": "empty host",
    "pulsar://h1:6650,,h2:6650": "empty host",
    "pulsar://": "no host",
    "pulsar://user:pw@h:6650": "user information",
    "pulsar://h:6650/admin": "path",
    "pulsar://h:6650?x=1": "query",
    "pulsar://h:6650#f": "fragment",
    "pulsar://h_x!:6650": "host 'h_x!'",
    "pulsar://h x:6650": "host",
    "pulsar://[::1]:6650": "IPv6",
    "http://h:6650": "pulsar:// or pulsar+ssl://",
    "pulsar:/h:6650": "pulsar:// or pulsar+ssl://",
}


@pytest.mark.parametrize("url", BAD_URLS)
def test_invalid_service_urls_are_rejected_with_the_reason(url: str) -> None:
    with pytest.raises(ConfigurationRejected) as info:
        ControlledConfiguration.from_json(answer(None, None, url))
    assert BAD_URLS[url] in str(info.value), str(info.value)


def test_a_trust_certs_file_that_cannot_be_read_is_rejected(files: dict[str, str]) -> None:
    body = json.dumps({"serviceUrl": "pulsar+ssl://h:6651", "tlsTrustCertsFilePath": "/nonexistent/ca.pem"})
    with pytest.raises(ConfigurationRejected, match="tlsTrustCertsFilePath"):
        ControlledConfiguration.from_json(body.encode())
    body = json.dumps({"serviceUrl": "pulsar+ssl://h:6651", "tlsTrustCertsFilePath": files["cert.pem"]})
    assert ControlledConfiguration.from_json(body.encode()).tls_trust_certs_file_path == files["cert.pem"]


def test_a_path_in_the_answer_is_read_with_a_size_bound(files: dict[str, str], tmp_path: Path) -> None:
    big = tmp_path / "huge.token"
    big.write_bytes(b"x" * (2 * 1024 * 1024))
    with pytest.raises(ConfigurationRejected, match="larger than"):
        ControlledConfiguration.from_json(answer("token", f"file://{big}"))
