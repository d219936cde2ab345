"""Every kind of bad URL-provider answer we try, and the table of outcomes in docs/reliability/url-provider-answers.md.

The same list drives the tests (``test_hostile_answers.py``) and the document, so the table cannot drift from
what is tested. Regenerate the document after changing a case or a message:

    .venv/bin/python -m tests.providers.hostile_answers
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from pulsar_ha_providers import ClusterEndpoint, ControlledClusterFailover
from pulsar_ha_providers.events import PollEvent

from .scripted_http import ScriptedServer, send, trickle

DOC = Path(__file__).resolve().parents[2] / "docs" / "reliability" / "url-provider-answers.md"
REGENERATE = ".venv/bin/python -m tests.providers.hostile_answers"
REQUEST_TIMEOUT = 0.3
CURRENT = "pulsar://127.0.0.1:6650"
PENDING = "pulsar://127.0.0.1:6651"  # what a good answer would switch to: a bad one must not
SECRET = "secret-params"
OAUTH_KEY = "file:///nonexistent/pulsar-ha/oauth-key.json"


@dataclass(frozen=True)
class HostileAnswer:
    kind: str
    sends: str  # what the URL provider sends, for the table
    respond: Callable[[BaseHTTPRequestHandler], None]
    expect: str  # a fragment the rejection message must contain


def body(data: object | bytes, status: int = 200) -> Callable[[BaseHTTPRequestHandler], None]:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return lambda handler: send(handler, status, raw)


def answer(**fields: object) -> Callable[[BaseHTTPRequestHandler], None]:
    return body({"serviceUrl": PENDING, **fields})


def auth(plugin: str, params: str) -> Callable[[BaseHTTPRequestHandler], None]:
    return answer(authPluginClassName=plugin, authParamsString=params)


def raw(data: bytes, close: bool = True) -> Callable[[BaseHTTPRequestHandler], None]:
    def respond(handler: BaseHTTPRequestHandler) -> None:
        handler.wfile.write(data)
        handler.wfile.flush()
        handler.close_connection = close

    return respond


def trickled_body(handler: BaseHTTPRequestHandler) -> None:
    data = json.dumps({"serviceUrl": PENDING}).encode().ljust(100)
    handler.send_response(200)
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.flush()
    trickle(handler, data, 0.03)


def trickled_headers(handler: BaseHTTPRequestHandler) -> None:
    data = json.dumps({"serviceUrl": PENDING}).encode()
    head = f"HTTP/1.0 200 OK\r\nX-Padding: {'p' * 40}\r\nContent-Length: {len(data)}\r\n\r\n".encode()
    trickle(handler, head + data, 0.03)


def hang(handler: BaseHTTPRequestHandler) -> None:
    time.sleep(REQUEST_TIMEOUT * 3)


def no_content(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(204)
    handler.end_headers()


def chunked_flood(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    chunk = b"x" * 8192
    try:
        for _ in range(128):
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        handler.wfile.write(b"0\r\n\r\n")
    except OSError:
        return


def short_body(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Length", "500")
    handler.end_headers()
    handler.wfile.write(b'{"serviceUrl": "' + PENDING.encode())
    handler.close_connection = True


CASES: list[HostileAnswer] = [
    # -- HTTP ---------------------------------------------------------------------------------------------
    HostileAnswer("trickled body", "a valid answer, one byte every 30 ms (3 s)", trickled_body, "body incomplete"),
    HostileAnswer(
        "trickled headers", "status line and headers one byte every 30 ms", trickled_headers, "headers incomplete"
    ),
    HostileAnswer("no answer", "accepts the request, never answers", hang, "no answer yet"),
    HostileAnswer("HTTP 500", "`500 Internal Server Error`", body(b"oops", 500), "HTTP 500"),
    HostileAnswer("HTTP 404", "`404 Not Found`", body(b"", 404), "HTTP 404"),
    HostileAnswer("HTTP 401", "`401 Unauthorized` (a missing header)", body(b"", 401), "HTTP 401"),
    HostileAnswer("HTTP 204", "`204 No Content`", no_content, "HTTP 204"),
    HostileAnswer(
        "redirect loop",
        "`302` to itself, forever",
        lambda h: send(h, 302, b"", {"Location": "/"}),
        "redirects too often",
    ),
    HostileAnswer(
        "redirect without Location", "`302` and no `Location`", lambda h: send(h, 302, b"", {}), "without a Location"
    ),
    HostileAnswer(
        "redirect to another scheme",
        "`302` to `ftp://...`",
        lambda h: send(h, 302, b"", {"Location": "ftp://example.com/x"}),
        "not an http(s) URL",
    ),
    HostileAnswer("oversize body", "a 1 MiB JSON document", answer(padding="x" * (1024 * 1024)), "larger than"),
    HostileAnswer("oversize chunked body", "1 MiB in HTTP chunks, no length", chunked_flood, "larger than"),
    HostileAnswer("body shorter than Content-Length", "half an answer, then close", short_body, "short of its"),
    HostileAnswer("not HTTP", "`garbage` instead of a status line", raw(b"garbage\r\n\r\n"), "not valid HTTP"),
    HostileAnswer("closed without answer", "closes the connection at once", raw(b""), "not valid HTTP"),
    # -- JSON ---------------------------------------------------------------------------------------------
    HostileAnswer("not JSON", "`<html>...`", body(b"<html>maintenance</html>"), "not valid JSON"),
    HostileAnswer(
        "truncated JSON", '`{"serviceUrl": "pulsar://`', body(b'{"serviceUrl": "pulsar://'), "not valid JSON"
    ),
    HostileAnswer("JSON array", "`[]`", body([]), "expected an object"),
    HostileAnswer("JSON string", '`"pulsar://h:6650"`', body("pulsar://h:6650"), "expected an object"),
    HostileAnswer(
        "deeply nested JSON",
        "a field nested 30000 levels (60 KB)",
        body(b'{"serviceUrl": "' + PENDING.encode() + b'", "x": ' + b"[" * 30000 + b"]" * 30000 + b"}"),
        "nests JSON too deeply",
    ),
    HostileAnswer(
        "huge number", "a 5000-digit integer field", body(b'{"serviceUrl": 1' + b"0" * 5000 + b"}"), "not valid JSON"
    ),
    HostileAnswer(
        "invalid UTF-8", "bytes `0xff 0xfe` in a string", body(b'{"serviceUrl": "\xff\xfe"}'), "not valid JSON"
    ),
    # -- serviceUrl ---------------------------------------------------------------------------------------
    HostileAnswer("no serviceUrl", "`{}`", body({}), "no serviceUrl"),
    HostileAnswer("empty serviceUrl", '`"serviceUrl": ""`', body({"serviceUrl": ""}), "no serviceUrl"),
    HostileAnswer("serviceUrl a number", '`"serviceUrl": 6650`', body({"serviceUrl": 6650}), "must be a string"),
    HostileAnswer("serviceUrl an object", '`"serviceUrl": {}`', body({"serviceUrl": {"a": 1}}), "must be a string"),
    HostileAnswer(
        "http serviceUrl", "`http://h:8080`", body({"serviceUrl": "http://h:8080"}), "not a pulsar:// or pulsar+ssl://"
    ),
    HostileAnswer("non-numeric port", "`pulsar://h:66x0`", body({"serviceUrl": "pulsar://h:66x0"}), "port '66x0'"),
    HostileAnswer("port 0", "`pulsar://h:0`", body({"serviceUrl": "pulsar://h:0"}), "port '0'"),
    HostileAnswer("port 70000", "`pulsar://h:70000`", body({"serviceUrl": "pulsar://h:70000"}), "port '70000'"),
    HostileAnswer(
        "empty host in a list",
        "`pulsar://h1:6650,,h2:6650`",
        body({"serviceUrl": "pulsar://h1:6650,,h2:6650"}),
        "empty host",
    ),
    HostileAnswer(
        "user information",
        "`pulsar://user:pw@h:6650`",
        body({"serviceUrl": "pulsar://user:pw@h:6650"}),
        "user information",
    ),
    HostileAnswer("path", "`pulsar://h:6650/admin`", body({"serviceUrl": "pulsar://h:6650/admin"}), "a path"),
    HostileAnswer("IPv6 literal", "`pulsar://[::1]:6650`", body({"serviceUrl": "pulsar://[::1]:6650"}), "IPv6"),
    HostileAnswer(
        "trust file missing",
        "`tlsTrustCertsFilePath` that does not exist",
        answer(tlsTrustCertsFilePath="/nonexistent/pulsar-ha/ca.pem"),
        "cannot be read",
    ),
    HostileAnswer(
        "trust file a list", "`tlsTrustCertsFilePath: []`", answer(tlsTrustCertsFilePath=["/a"]), "must be a string"
    ),
    # -- auth ---------------------------------------------------------------------------------------------
    HostileAnswer("unknown plugin", "`com.example.NoSuchAuth`", auth("com.example.NoSuchAuth", SECRET), "unknown"),
    HostileAnswer("plugin a number", "`authPluginClassName: 1`", answer(authPluginClassName=1), "must be a string"),
    HostileAnswer("token empty", "token, `token:`", auth("token", "token:"), "needs a token"),
    HostileAnswer(
        "token from a device", "token, `file:///dev/zero`", auth("token", "file:///dev/zero"), "not a regular file"
    ),
    HostileAnswer(
        "token file missing",
        "token, `file:///nonexistent/...`",
        auth("token", "file:///nonexistent/t"),
        "cannot be read",
    ),
    HostileAnswer(
        "token env unset",
        "token, `env:` of an unset variable",
        auth("token", "env:PULSAR_HA_UNSET_VARIABLE"),
        "not set",
    ),
    HostileAnswer(
        "token with a newline", "token, `token:abc\\ndef`", auth("token", "token:abc\ndef"), "control characters"
    ),
    HostileAnswer(
        "tls without key", "tls, `tlsCertFile:/c.pem`", auth("tls", "tlsCertFile:/c.pem"), "needs tlsCertFile"
    ),
    HostileAnswer(
        "tls files missing",
        "tls, paths that do not exist",
        auth("tls", "tlsCertFile:/nonexistent/c.pem,tlsKeyFile:/nonexistent/k.pem"),
        "cannot be read",
    ),
    HostileAnswer(
        "tls JSON not strings", 'tls, `{"tlsCertFile": 1}`', auth("tls", '{"tlsCertFile": 1}'), "must be strings"
    ),
    HostileAnswer("basic user:password", "basic, `app:secret`", auth("basic", "app:" + SECRET), "JSON object"),
    HostileAnswer(
        "basic without password", 'basic, `{"userId": "app"}`', auth("basic", '{"userId": "app"}'), "needs userId"
    ),
    HostileAnswer("oauth2 not JSON", "oauth2, a plain string", auth("oauth2", SECRET), "JSON object"),
    HostileAnswer(
        "oauth2 without issuerUrl",
        'oauth2, `{"privateKey": ...}`',
        auth("oauth2", json.dumps({"privateKey": OAUTH_KEY})),
        "needs issuerUrl",
    ),
    HostileAnswer(
        "oauth2 issuerUrl not a URL",
        'oauth2, `"issuerUrl": "not a url"`',
        auth("oauth2", json.dumps({"issuerUrl": "not a url", "privateKey": OAUTH_KEY})),
        "issuerUrl is not",
    ),
    HostileAnswer(
        "oauth2 key over https",
        "oauth2, `privateKey: https://...`",
        auth("oauth2", json.dumps({"issuerUrl": "https://a.example", "privateKey": "https://k.example/k"})),
        "privateKey must be",
    ),
    HostileAnswer(
        "oauth2 key file missing",
        "oauth2, a key file that does not exist",
        auth("oauth2", json.dumps({"issuerUrl": "https://a.example", "privateKey": OAUTH_KEY})),
        "cannot be read",
    ),
    HostileAnswer(
        "oauth2 unknown type",
        '`"type": "authorization_code"`',
        auth("oauth2", json.dumps({"type": "authorization_code", "issuerUrl": "https://a", "privateKey": OAUTH_KEY})),
        "unsupported OAuth2 type",
    ),
]


@dataclass(frozen=True)
class Outcome:
    switched: bool
    polls: list[PollEvent]
    warnings: list[str]
    took_s: float


def run_case(case: HostileAnswer, polls: int = 2) -> Outcome:
    """Poll a server answering ``case`` ``polls`` times; a fake client update records any switch."""
    updates: list[Any] = []
    records: list[logging.LogRecord] = []
    handler = _Collect(records)
    logger = logging.getLogger("pulsar_ha_providers")
    logger.addHandler(handler)
    try:
        with ScriptedServer(case.respond) as server:
            provider = ControlledClusterFailover(
                ClusterEndpoint(CURRENT), server.url, check_interval=1.0, request_timeout=REQUEST_TIMEOUT
            )
            provider._update = updates.append
            began = time.monotonic()
            for _ in range(polls):
                provider.poll()
            took = (time.monotonic() - began) / polls
            provider.close()
    finally:
        logger.removeHandler(handler)
    events = [e for e in provider.events.recent if isinstance(e, PollEvent)]
    return Outcome(bool(updates) or bool(provider.events.switches()), events, [r.getMessage() for r in records], took)


class _Collect(logging.Handler):
    def __init__(self, records: list[logging.LogRecord]) -> None:
        super().__init__(logging.DEBUG)
        self.records = records

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def render_markdown(outcomes: list[tuple[HostileAnswer, Outcome]]) -> str:
    lines = [
        "# Bad URL-provider answers and what ControlledClusterFailover does with them",
        "",
        f"<!-- generated by `{REGENERATE}` from tests/providers/hostile_answers.py; do not edit by hand -->",
        "",
        "Each row is one answer a hostile or broken URL provider sends while a switch to another cluster is",
        "pending (a good answer would switch). Every one is a failed poll (a `PollEvent` with `ok=False` and",
        "the message below, logged once) and none switches the client. The provider polls with",
        f"`request_timeout={REQUEST_TIMEOUT}s`, which is a deadline for the whole request (connect, redirects,",
        "headers, body): an answer not complete by then is discarded. Auth parameters are accepted in the Java",
        "client's formats and checked completely (required keys, files readable, key files well formed) before",
        "any switch; messages never repeat them. The tests in `tests/providers/test_hostile_answers.py` run",
        "exactly these cases.",
        "",
        "| # | kind | the URL provider sends | outcome |",
        "|---|------|------------------------|---------|",
    ]
    for number, (case, outcome) in enumerate(outcomes, 1):
        verdict = "**switched**" if outcome.switched else "rejected, no switch"
        message = outcome.polls[-1].error if outcome.polls else "(no poll event)"
        lines.append(f"| {number} | {_cell(case.kind)} | {_cell(case.sends)} | {verdict}: `{_cell(message)}` |")
    lines.append("")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_all() -> str:
    return render_markdown([(case, run_case(case, polls=1)) for case in CASES])


if __name__ == "__main__":
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(render_all())
    sys.stdout.write(f"wrote {DOC} ({len(CASES)} cases)\n")
