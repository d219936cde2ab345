"""JWT tokens for Pulsar's token authentication (HS256, as ``pulsar tokens create`` makes them)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def new_secret_key() -> bytes:
    """A random 256-bit HMAC key (what ``pulsar tokens create-secret-key`` writes)."""
    return secrets.token_bytes(32)


def create_token(secret_key: bytes, subject: str) -> str:
    """A signed HS256 JWT with ``sub`` = ``subject`` and no expiry."""
    header = _b64url(json.dumps({"alg": "HS256"}, separators=(",", ":")).encode())
    payload = _b64url(json.dumps({"sub": subject}, separators=(",", ":")).encode())
    signature = hmac.new(secret_key, f"{header}.{payload}".encode(), hashlib.sha256).digest()
    return f"{header}.{payload}.{_b64url(signature)}"
