"""Files that only exist on the demo's feature branches (and the merged logging branch)."""

from __future__ import annotations

RETRY = '''\
"""Retry with exponential backoff and full jitter (ABC-123).

We agreed to use exponential backoff instead of a fixed 1 s sleep: the processor rate-limits
bursts, and synchronized retries from every worker made the EU incident of 2026-06-07 worse.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

from urllib3.exceptions import ConnectTimeoutError, ReadTimeoutError

T = TypeVar("T")

RETRYABLE = (ConnectTimeoutError, ReadTimeoutError)


def backoff_delays(attempts: int, base: float = 0.25, cap: float = 8.0) -> list[float]:
    """Upper bounds of each sleep: base * 2**n, capped."""
    return [min(cap, base * 2**n) for n in range(attempts)]


def with_retries(
    call: Callable[[], T],
    *,
    attempts: int = 4,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
) -> T:
    """Run ``call``; on a timeout sleep a jittered exponential delay and try again."""
    rng = rng or random.Random()
    for delay in backoff_delays(attempts - 1):
        try:
            return call()
        except RETRYABLE:
            sleep(rng.uniform(0, delay))
    return call()
'''

TEST_RETRY = """\
import random

import pytest
from urllib3.exceptions import ReadTimeoutError

from payments_api.retry import backoff_delays, with_retries


def test_backoff_doubles_and_caps():
    assert backoff_delays(7) == [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 8.0]


def test_gives_up_after_attempts():
    calls = []

    def flaky():
        calls.append(1)
        raise ReadTimeoutError(None, "/v1/charges", "Read timed out.")

    with pytest.raises(ReadTimeoutError):
        with_retries(flaky, attempts=3, sleep=lambda _: None, rng=random.Random(1))
    assert len(calls) == 3
"""

WEBHOOKS = '''\
"""Verify and dispatch the processor's webhooks.

The processor signs ``<timestamp>.<raw body>`` with HMAC-SHA256 and sends
``Processor-Signature: t=<timestamp>,v1=<hex digest>``.
"""

from __future__ import annotations

import hashlib
import hmac
import time

TOLERANCE_SECONDS = 300


class SignatureError(ValueError):
    """The webhook signature is missing, malformed, stale or wrong."""


def verify_signature(payload: bytes, header: str, secret: str, now: float | None = None) -> int:
    parts = dict(item.split("=", 1) for item in header.split(",") if "=" in item)
    try:
        timestamp = int(parts["t"])
        expected = parts["v1"]
    except (KeyError, ValueError) as err:
        raise SignatureError("malformed Processor-Signature header") from err
    now = time.time() if now is None else now
    if abs(now - timestamp) > TOLERANCE_SECONDS:
        raise SignatureError("timestamp outside the replay window")
    signed = f"{timestamp}.".encode() + payload
    digest = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(digest, expected):
        raise SignatureError("signature mismatch")
    return timestamp
'''

ROUTES_WEBHOOKS = '''\
"""POST /webhooks/processor."""

from __future__ import annotations

from fastapi import APIRouter, Header, HTTPException, Request

from payments_api.webhooks import SignatureError, verify_signature

router = APIRouter()


@router.post("/processor", status_code=204)
async def processor_webhook(
    request: Request, processor_signature: str = Header(default="")
) -> None:
    payload = await request.body()
    try:
        verify_signature(payload, processor_signature, request.app.state.webhook_secret)
    except SignatureError as err:
        raise HTTPException(status_code=400, detail=str(err)) from err
'''

TEST_WEBHOOKS = """\
import hashlib
import hmac

import pytest

from payments_api.webhooks import SignatureError, verify_signature


def _sign(body: bytes, ts: int, secret: str = "whsec_test") -> str:
    digest = hmac.new(secret.encode(), f"{ts}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={ts},v1={digest}"


def test_valid_signature():
    assert verify_signature(b"{}", _sign(b"{}", 1000), "whsec_test", now=1010) == 1000


def test_replayed_webhook_is_refused():
    with pytest.raises(SignatureError, match="replay window"):
        verify_signature(b"{}", _sign(b"{}", 1000), "whsec_test", now=2000)
"""

IDEMPOTENCY = '''\
"""Idempotency-Key support (ABC-131): a retried POST returns the first response."""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class StoredResponse:
    request_hash: str
    status_code: int
    body: bytes


class IdempotencyStore:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._responses: dict[str, StoredResponse] = {}

    @staticmethod
    def fingerprint(method: str, path: str, body: bytes) -> str:
        return hashlib.sha256(method.encode() + b" " + path.encode() + b"\\n" + body).hexdigest()

    def lookup(self, key: str, request_hash: str) -> StoredResponse | None:
        with self._lock:
            stored = self._responses.get(key)
        if stored is not None and stored.request_hash != request_hash:
            raise ValueError("Idempotency-Key reused with a different request body")
        return stored

    def save(self, key: str, response: StoredResponse) -> None:
        with self._lock:
            self._responses.setdefault(key, response)
'''

LOGGING = '''\
"""JSON log lines with a request id, so one payment can be followed across workers."""

from __future__ import annotations

import json
import logging
import time


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return json.dumps(
            {
                "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)),
                "level": record.levelname.lower(),
                "logger": record.name,
                "msg": record.getMessage(),
                "request_id": getattr(record, "request_id", None),
            }
        )


def configure_logging(level: str = "INFO") -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    logging.basicConfig(level=level, handlers=[handler], force=True)
'''

CI_WORKFLOW = """\
name: ci
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        python: ["3.11", "3.12"]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: ${{ matrix.python }}
      - run: pip install -e '.[test]'
      - run: pytest -q
"""

ADR_RETRY = """\
# ADR 0003: retry policy for processor calls

Status: accepted (2026-06-11)

## Decision
We agreed to use exponential backoff with full jitter for timeouts on processor calls:
`delay_n = uniform(0, min(8 s, 0.25 s * 2**n))`, at most 4 attempts, and only for requests that
carry an idempotency key. Non-idempotent calls are never retried automatically.

## Why
A fixed 1 s retry synchronized every worker during the 2026-06-07 incident (ABC-123): the
processor saw a thundering herd each second and rate-limited us for 14 minutes.
"""
