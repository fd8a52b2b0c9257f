"""Write the demo's pull-request snapshots (``.ade/prs/<n>.json``, the ``gh pr view --json`` shape)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.demo.clock import ago, iso
from engine.demo.history import (
    CI_BRANCH,
    IDEMPOTENCY_BRANCH,
    LOGGING_BRANCH,
    RETRY_BRANCH,
    WEBHOOK_BRANCH,
)
from engine.demo.store import write_json

REPO_URL = "https://github.com/acme/payments-api"
"""Base of every PR url (matches the demo's ``origin`` remote)."""

Comment = tuple[str, float, str]
"""(author login, days before DEMO_NOW, body)."""

PRS: tuple[tuple[int, str, str, str, str, float, str, tuple[Comment, ...]], ...] = (
    (
        38,
        "Structured JSON logging with request ids",
        "MERGED",
        "marco",
        LOGGING_BRANCH,
        13.2,
        "Every log line is one JSON object with `ts`, `level`, `logger`, `msg` and `request_id`, so "
        "a payment can be followed across uvicorn workers with `jq`.",
        (
            (
                "dana",
                14.5,
                "Can we keep the plain formatter for `make dev`? JSON is hard to read locally.",
            ),
            ("marco", 14.2, "Added `LOG_FORMAT=plain` for local runs; JSON stays the default."),
            ("priya", 13.3, "LGTM 🚀"),
        ),
    ),
    (
        41,
        "ABC-123: exponential backoff for gateway retries",
        "OPEN",
        "dana",
        RETRY_BRANCH,
        0.1,
        "Fixes ABC-123.\n\nRetries processor calls on `ConnectTimeoutError`/`ReadTimeoutError` with "
        "exponential backoff and full jitter (0.25 s doubling, capped at 8 s, 4 attempts). See "
        "ADR 0003: we agreed to use exponential backoff after the 2026-06-07 incident.\n\n"
        "Also lowers `connect_timeout` from 3.05 s to 2 s.",
        (
            ("priya", 0.9, "Can we make the attempts configurable via GATEWAY_MAX_RETRIES?"),
            (
                "marco",
                0.8,
                "The jitter should use an injected rng in tests, the retry test is flaky: "
                "`test_gives_up_after_attempts` failed twice on CI with ReadTimeoutError.",
            ),
            (
                "dana",
                0.1,
                "Thanks both — the rng fix is pushed; an agent in the ABC-123 lane is making "
                "the attempts configurable.",
            ),
        ),
    ),
    (
        42,
        "Verify processor webhook signatures",
        "OPEN",
        "priya",
        WEBHOOK_BRANCH,
        0.6,
        "Adds `POST /webhooks/processor` with HMAC-SHA256 verification of `Processor-Signature` and "
        "a 5 minute replay window (`TOLERANCE_SECONDS = 300`).",
        (
            ("dana", 1.5, "Please compare with `hmac.compare_digest`, not `==`."),
            (
                "priya",
                1.4,
                "It does — see `verify_signature`. Added a test for the replay window too.",
            ),
            ("marco", 0.6, "Runbook section on rotating WEBHOOK_SECRET is 👌"),
        ),
    ),
    (
        43,
        "ABC-131: idempotency keys for POST /payments",
        "OPEN",
        "marco",
        IDEMPOTENCY_BRANCH,
        0.9,
        "Draft. Stores the first response per `Idempotency-Key` and refuses a reused key with a "
        "different body. Needed before ABC-123 can retry charges safely.",
        (
            (
                "dana",
                1.7,
                "Blocking ABC-123 on this one — retries must only apply to idempotent calls.",
            ),
        ),
    ),
    (
        44,
        "CI: test on Python 3.11 and 3.12",
        "CLOSED",
        "marco",
        CI_BRANCH,
        3.5,
        "Matrix build with pip caching.",
        (
            ("priya", 3.6, "We deploy 3.11 only; let's revisit when the base image moves to 3.12."),
            ("marco", 3.5, "Fair, closing for now."),
        ),
    ),
)
"""(number, title, state, author, head branch, days before DEMO_NOW of the last update, body, comments)."""


def pr_snapshot(
    entry: tuple[int, str, str, str, str, float, str, tuple[Comment, ...]],
) -> dict[str, Any]:
    """One PR as ``gh pr view --json`` prints it (the fields DESIGN §2 lists)."""
    number, title, state, author, branch, days, body, comments = entry
    return {
        "number": number,
        "title": title,
        "body": body,
        "state": state,
        "author": author,
        "headBranch": branch,
        "baseBranch": "main",
        "url": f"{REPO_URL}/pull/{number}",
        "updatedAt": iso(ago(days=days)),
        "comments": [
            {"author": who, "body": text, "createdAt": iso(ago(days=when))}
            for who, when, text in comments
        ],
    }


def write_prs(ade: Path) -> tuple[int, ...]:
    """Write every PR snapshot and return their numbers."""
    for entry in PRS:
        write_json(ade / "prs" / f"{entry[0]}.json", pr_snapshot(entry))
    return tuple(entry[0] for entry in PRS)
