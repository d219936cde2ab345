"""Just enough of Pulsar's binary protocol for a health probe: CONNECT, then a topic LOOKUP.

Hand-written protobuf for the few fields needed (field numbers from PulsarApi.proto), so a probe is a plain
socket with a deadline: it never shares the application client's connections and never blocks past its timeout.
"""

from __future__ import annotations

import socket
import ssl
import struct
import time
from dataclasses import dataclass

# BaseCommand.Type and BaseCommand field numbers
CONNECT, CONNECTED, ERROR, PING, PONG, LOOKUP, LOOKUP_RESPONSE = 2, 3, 14, 18, 19, 23, 24
LOOKUP_REDIRECT, LOOKUP_CONNECT, LOOKUP_FAILED = 0, 1, 2
PROTOCOL_VERSION = 15
CLIENT_VERSION = "pytest-pulsar-ha-probe"


class WireError(Exception):
    """The broker answered something that is not a healthy lookup, or the connection broke."""


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field_varint(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value)


def _field_bytes(number: int, value: bytes) -> bytes:
    return _varint((number << 3) | 2) + _varint(len(value)) + value


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise WireError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def parse_fields(data: bytes) -> dict[int, list[int | bytes]]:
    """Decode one protobuf message into {field number: [values]} (varints as int, length-delimited as bytes)."""
    fields: dict[int, list[int | bytes]] = {}
    pos = 0
    while pos < len(data):
        key, pos = _read_varint(data, pos)
        number, wire_type = key >> 3, key & 7
        value: int | bytes
        if wire_type == 0:
            value, pos = _read_varint(data, pos)
        elif wire_type == 2:
            length, pos = _read_varint(data, pos)
            value, pos = data[pos : pos + length], pos + length
        elif wire_type == 5:
            value, pos = int.from_bytes(data[pos : pos + 4], "little"), pos + 4
        elif wire_type == 1:
            value, pos = int.from_bytes(data[pos : pos + 8], "little"), pos + 8
        else:
            raise WireError(f"unsupported wire type {wire_type}")
        fields.setdefault(number, []).append(value)
    return fields


def frame(command_type: int, field_number: int, body: bytes) -> bytes:
    command = _field_varint(1, command_type) + _field_bytes(field_number, body)
    return struct.pack(">II", len(command) + 4, len(command)) + command


def connect_command(auth_method: str | None = None, auth_data: bytes | None = None) -> bytes:
    body = _field_bytes(1, CLIENT_VERSION.encode()) + _field_varint(4, PROTOCOL_VERSION)
    if auth_method:
        body += _field_bytes(5, auth_method.encode()) + _field_bytes(3, auth_data or b"")
    return frame(CONNECT, 2, body)


def lookup_command(topic: str, request_id: int, listener: str | None = None) -> bytes:
    body = _field_bytes(1, topic.encode()) + _field_varint(2, request_id) + _field_varint(3, 0)
    if listener:
        body += _field_bytes(7, listener.encode())
    return frame(LOOKUP, 23, body)


@dataclass(frozen=True)
class LookupAnswer:
    response: str  # "Connect" or "Redirect"
    broker_url: str


class _Connection:
    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock = sock
        self.deadline = deadline

    def _recv_exact(self, size: int) -> bytes:
        data = bytearray()
        while len(data) < size:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no answer before the probe deadline")
            self.sock.settimeout(remaining)
            chunk = self.sock.recv(size - len(data))
            if not chunk:
                raise WireError("the connection was closed by the other side")
            data += chunk
        return bytes(data)

    def read_command(self) -> tuple[int, dict[int, list[int | bytes]]]:
        total, command_size = struct.unpack(">II", self._recv_exact(8))
        command = self._recv_exact(command_size)
        if total > command_size + 4:
            self._recv_exact(total - command_size - 4)  # payload: not expected on a lookup connection
        fields = parse_fields(command)
        command_type = int(fields[1][0])
        return command_type, fields


def _text(fields: dict[int, list[int | bytes]], number: int) -> str:
    values = fields.get(number)
    return bytes(values[0]).decode(errors="replace") if values and isinstance(values[0], bytes) else ""


def probe_lookup(
    host: str,
    port: int,
    topic: str,
    timeout: float,
    *,
    auth_method: str | None = None,
    auth_data: bytes | None = None,
    listener: str | None = None,
    tls: ssl.SSLContext | None = None,
) -> LookupAnswer:
    """Connect, handshake and look ``topic`` up, all within ``timeout`` seconds; raise on anything unhealthy."""
    deadline = time.monotonic() + timeout
    with socket.create_connection((host, port), timeout=timeout) as raw:
        sock = tls.wrap_socket(raw, server_hostname=host) if tls else raw
        conn = _Connection(sock, deadline)
        sock.sendall(connect_command(auth_method, auth_data))
        command_type, fields = conn.read_command()
        if command_type == ERROR:
            raise WireError(f"CONNECT refused: {_text(parse_fields(bytes(fields[14][0])), 3)}")
        if command_type != CONNECTED:
            raise WireError(f"unexpected answer to CONNECT (command type {command_type})")
        sock.sendall(lookup_command(topic, 1, listener))
        while True:
            command_type, fields = conn.read_command()
            if command_type == PING:
                sock.sendall(frame(PONG, 19, b""))
                continue
            if command_type != LOOKUP_RESPONSE:
                raise WireError(f"unexpected answer to LOOKUP (command type {command_type})")
            response = parse_fields(bytes(fields[24][0]))
            kind = int(response.get(3, [LOOKUP_FAILED])[0])
            if kind == LOOKUP_FAILED:
                code = response.get(6, [-1])[0]
                raise WireError(f"lookup failed: server error {code!r}: {_text(response, 7)}")
            return LookupAnswer("Connect" if kind == LOOKUP_CONNECT else "Redirect", _text(response, 1))
