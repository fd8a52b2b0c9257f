"""What the demo's agent chats say: the turns of each conversation, as data.

Each script is a tuple of turns; ``chats.py`` turns them into transcript events with ids,
sequence numbers and times. The content is written to be searched: a ReadTimeoutError stack trace,
the exponential-backoff decision, ``connect_timeout``, ``ABC-123``, webhook HMACs, idempotency keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class User:
    """A user message; ``delivery`` is the later snapshot status (None: still only accepted)."""

    text: str
    delivery: str | None = "processed"


@dataclass(frozen=True)
class Assistant:
    text: str
    replayed: bool = False
    """Write this message twice (same id), the way a reconnecting agent replays its last event."""


@dataclass(frozen=True)
class Tool:
    name: str
    input: dict[str, Any] = field(default_factory=dict)
    output: str = ""


@dataclass(frozen=True)
class Title:
    title: str


@dataclass(frozen=True)
class Junk:
    """A line readers must skip: ``torn`` (a crashed writer's half line) or ``unknown_type``."""

    kind: Literal["torn", "unknown_type"]


Turn = User | Assistant | Tool | Title | Junk

SHA_PLACEHOLDER = re.compile(r"<<sha:([^>]+)>>")
"""``<<sha:SUBJECT>>`` in a script becomes the short sha of the demo commit with that subject."""

RELEASE_040_SUBJECTS = (
    "Release 0.4.0",
    "Raise read_timeout to 10 s for 3-D Secure flows",
    "Changelog: structured logging",
    "Architecture: note the planned Postgres store",
    "Runbook: reading ReadTimeoutError bursts in the JSON logs",
    "Merge pull request #38 from acme/feature/structured-logging",
    "README: document GATEWAY_MAX_RETRIES",
)
"""``git log --first-parent v0.3.0..v0.4.0`` of the demo, newest first (a test checks it)."""

TRACE = """\
Traceback (most recent call last):
  File "/srv/payments-api/.venv/lib/python3.11/site-packages/urllib3/connectionpool.py", line 537, in _make_request
    response = conn.getresponse()
  File "/srv/payments-api/.venv/lib/python3.11/site-packages/urllib3/connection.py", line 466, in getresponse
    httplib_response = super().getresponse()
TimeoutError: The read operation timed out

The above exception was the direct cause of the following exception:

  File "/srv/payments-api/payments_api/gateway.py", line 44, in _post
    response = self._http.request("POST", url, body=json.dumps(body))
urllib3.exceptions.ReadTimeoutError: HTTPSConnectionPool(host='api.processor.test', port=443): Read timed out. (read timeout=5.0)"""

READTIMEOUT_TRIAGE: tuple[Turn, ...] = (
    User(
        "Since 09:40 we get bursts of 502s from POST /payments in prod. The logs are full of "
        f"this, can you find out why?\n\n```\n{TRACE}\n```"
    ),
    Title("Investigate ReadTimeoutError in gateway client"),
    Tool(
        "Bash",
        {"command": "grep -n timeout payments_api/config.py payments_api/gateway.py"},
        "payments_api/config.py:12:    connect_timeout: float = 3.05\n"
        "payments_api/config.py:13:    read_timeout: float = 5.0\n"
        "payments_api/gateway.py:24:                connect=settings.connect_timeout, read=settings.read_timeout\n"
        "payments_api/gateway.py:43:        except ReadTimeoutError as err:",
    ),
    Tool(
        "Read",
        {"file_path": "payments_api/gateway.py", "offset": 38, "limit": 12},
        "    def _post(self, path: str, body: dict) -> dict:\n"
        "        url = self._settings.gateway_url + path\n"
        "        try:\n"
        '            response = self._http.request("POST", url, body=json.dumps(body))\n'
        "        except ReadTimeoutError as err:",
    ),
    Assistant(
        "The stack trace is a read timeout, not a connection problem: the TCP connection to "
        "`api.processor.test` was established (so `connect_timeout` is fine), then urllib3 "
        "waited `read_timeout=5.0` seconds for the response and gave up with "
        "`ReadTimeoutError`. `GatewayClient._post` turns that into `GatewayError`, which the "
        "route maps to 502.\n\nThe processor's 3-D Secure step regularly takes 6–8 s for EU "
        "cards, so 5 s is too tight:\n\n```python\n# payments_api/config.py\nread_timeout: "
        "float = 10.0  # 3-D Secure challenges take up to ~8 s\n```\n\nThat stops most "
        "of the 502s. It does not help when the processor is really slow; for that we want "
        "retries, but only with backoff — a fixed retry would hammer them during an incident."
    ),
    User("Should we just bump the timeout then, or add retries right away?"),
    Assistant(
        "Both, in two steps:\n\n1. Now: `read_timeout` 5 s → 10 s (one-line change, safe).\n"
        "2. Next: retry timeouts with exponential backoff and jitter, only for requests "
        "that carry an idempotency key, so a retried charge can never charge twice.\n\n"
        "I would not raise `read_timeout` past 30 s: each waiting request holds a uvicorn "
        "worker."
    ),
    User("ok, bump it to 10 now and open a ticket for the retries"),
    Tool(
        "Edit",
        {
            "file_path": "payments_api/config.py",
            "old_string": "read_timeout: float = 5.0",
            "new_string": "read_timeout: float = 10.0",
        },
        "Applied 1 edit to payments_api/config.py",
    ),
    Tool(
        "linear.create_issue",
        {
            "team": "ABC",
            "title": "Retry gateway timeouts with exponential backoff",
            "labels": ["payments", "reliability"],
        },
        '{"identifier": "ABC-123", "url": "https://linear.app/acme/issue/ABC-123"}',
    ),
    Assistant(
        "Done: `read_timeout` is 10 s on main, and the retry work is ABC-123. I named the "
        "lane branch `feature/ABC-123-retry-backoff` so the ticket links itself."
    ),
)

BACKOFF: tuple[Turn, ...] = (
    User(
        "ABC-123: implement the retries for gateway calls. We agreed to use exponential backoff "
        "with full jitter, capped at 8 s, max 4 attempts. Only ConnectTimeoutError and "
        "ReadTimeoutError are retryable."
    ),
    Title("ABC-123: exponential backoff for gateway retries"),
    Assistant(
        "Plan: a small `payments_api/retry.py` with a pure `backoff_delays()` (easy to test) "
        "and `with_retries()` taking an injectable `sleep` and `rng`:\n\n```python\n"
        "def backoff_delays(attempts: int, base: float = 0.25, cap: float = 8.0) -> list[float]:\n"
        "    return [min(cap, base * 2**n) for n in range(attempts)]\n\n\n"
        "def with_retries(call, *, attempts=4, sleep=time.sleep, rng=None):\n"
        "    rng = rng or random.Random()\n"
        "    for delay in backoff_delays(attempts - 1):\n"
        "        try:\n"
        "            return call()\n"
        "        except RETRYABLE:\n"
        "            sleep(rng.uniform(0, delay))\n"
        "    return call()\n```\n\nFull jitter (`uniform(0, delay)`) rather than "
        "`delay ± 10%` so workers that failed together do not retry together."
    ),
    Tool(
        "Write", {"file_path": "payments_api/retry.py"}, "Wrote 41 lines to payments_api/retry.py"
    ),
    Tool(
        "Bash",
        {"command": "pytest -q tests/test_retry.py"},
        "..                                                                       [100%]\n"
        "2 passed in 0.04s",
    ),
    Assistant(
        "Both retry tests pass. Wiring it into `GatewayClient._post` next; the call is "
        "wrapped in a lambda so each attempt re-sends the same body.",
        replayed=True,
    ),
    User("Good. Also write the ADR so the decision is on record."),
    Tool(
        "Write",
        {"file_path": "docs/adr/0003-retry-policy.md"},
        "Wrote 14 lines to docs/adr/0003-retry-policy.md",
    ),
    Assistant(
        "ADR 0003 records it: *we agreed to use exponential backoff with full jitter for "
        "timeouts on processor calls*, at most 4 attempts, only for idempotent requests. It "
        "also cites the 2026-06-07 incident where the fixed 1 s retry synchronized every "
        "worker and we were rate-limited for 14 minutes."
    ),
)

CONNECT_TIMEOUT: tuple[Turn, ...] = (
    User("With retries in place, can we lower connect_timeout? 3.05 feels long."),
    Title("Tune connect_timeout for the processor"),
    Tool(
        "shell",
        {"command": ["rg", "-n", "connect_timeout", "payments_api", "docs"]},
        "payments_api/config.py:12:    connect_timeout: float = 3.05\n"
        'payments_api/config.py:21:        connect_timeout=float(os.environ.get("GATEWAY_CONNECT_TIMEOUT", "3.05")),\n'
        "docs/architecture.md:11:  place. `connect_timeout` is short (3.05 s: just above the 3 s TCP retransmit), `read_timeout`",
    ),
    Assistant(
        "3.05 s was chosen to survive one lost SYN (Linux retransmits the SYN after 1 s, "
        "then 3 s). Now that a connect timeout is retried with backoff, failing fast is "
        "cheaper than waiting:\n\n```python\nconnect_timeout: float = 2.0\n```\n\n"
        "and `GATEWAY_CONNECT_TIMEOUT=2` as the default in `load_settings()`. Worst case for a "
        "dead endpoint is now 2 + 0.25 + 2 + 0.5 + 2 + 1 + 2 ≈ 9.75 s instead of 12.2 s."
    ),
    User("ship it on the ABC-123 branch"),
    Tool(
        "shell",
        {"command": ["git", "commit", "-am", "ABC-123: lower connect_timeout to 2 s"]},
        "[feature/ABC-123-retry-backoff <<sha:ABC-123: lower connect_timeout to 2 s>>] ABC-123: lower connect_timeout to 2 s\n"
        " 1 file changed, 2 insertions(+), 2 deletions(-)",
    ),
    Assistant("Committed on `feature/ABC-123-retry-backoff`."),
)

WEBHOOK_SIGNATURES: tuple[Turn, ...] = (
    User(
        "Add verification for the processor's webhooks. Header is `Processor-Signature: "
        "t=1718452800,v1=<hex>`, HMAC-SHA256 over `<t>.<raw body>` with WEBHOOK_SECRET."
    ),
    Title("Verify processor webhook signatures (HMAC-SHA256)"),
    Assistant(
        "Two details matter: compute the HMAC over the *raw* request bytes (not re-serialized "
        "JSON), and compare with `hmac.compare_digest` to avoid a timing oracle:\n\n"
        '```python\nsigned = f"{timestamp}.".encode() + payload\n'
        "digest = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()\n"
        "if not hmac.compare_digest(digest, expected):\n"
        '    raise SignatureError("signature mismatch")\n```'
    ),
    Tool(
        "Write",
        {"file_path": "payments_api/webhooks.py"},
        "Wrote 38 lines to payments_api/webhooks.py",
    ),
    Tool(
        "Bash",
        {"command": "pytest -q tests/test_webhooks.py"},
        "FAILED tests/test_webhooks.py::test_valid_signature - SignatureError: timestamp outside the replay window\n"
        "1 failed, 1 passed in 0.05s",
    ),
    Assistant(
        "The failing test used a timestamp from 2024 with the real clock. I added a `now` "
        "parameter so tests pass a fixed time instead of patching `time.time`."
    ),
    Tool("Bash", {"command": "pytest -q tests/test_webhooks.py"}, "2 passed in 0.03s"),
    User("nice. what happens on a bad signature at the route level?"),
    Assistant(
        "`POST /webhooks/processor` answers 400 with the reason (`malformed Processor-Signature "
        "header`, `timestamp outside the replay window`, `signature mismatch`). The processor "
        "retries non-2xx deliveries for 3 days, so a misconfigured WEBHOOK_SECRET shows up as "
        "a steady stream of 400s, not lost events."
    ),
)

WEBHOOK_REPLAY: tuple[Turn, ...] = (
    User("How big should the replay window be? The processor docs say 5 minutes."),
    Title("Replay window for webhooks"),
    Assistant(
        "5 minutes (`TOLERANCE_SECONDS = 300`) matches the processor's own retry cadence and "
        "tolerates clock skew. A captured request replayed later than that is refused. Inside "
        "the window we also dedupe on the event id, so an exact replay is a no-op."
    ),
    Tool(
        "shell", {"command": ["python", "-c", "import time; print(int(time.time()))"]}, "1781524800"
    ),
    User("and clock skew on our pods?"),
    Assistant(
        "chrony keeps them within ~50 ms; 300 s leaves plenty of margin. Logged as a note "
        "in the runbook under *Rotating WEBHOOK_SECRET*."
    ),
)

FLAKY_REFUND: tuple[Turn, ...] = (
    User("test_refund_partial fails on CI about one run in five, never locally. Why?"),
    Title("Flaky test_refund_partial on CI"),
    Tool(
        "Bash",
        {"command": "pytest -p randomly -q tests --randomly-seed=1234"},
        "F....\nFAILED tests/test_refunds.py::test_refund_partial - KeyError: 'pay_0c1d'\n"
        "1 failed, 4 passed in 0.09s",
    ),
    Assistant(
        "Order-dependent: `PAYMENTS` is a module-level dict and CI runs tests with "
        "pytest-randomly. When `test_unknown_payment_is_404` runs after a refund test it "
        "sees leftovers. The `client` fixture should clear the store:\n\n```python\n"
        "@pytest.fixture()\ndef client() -> TestClient:\n    PAYMENTS.clear()\n"
        "    app.state.gateway = FakeGateway()\n    return TestClient(app)\n```"
    ),
    User("fixed, thanks — archiving this one"),
    Assistant("👍 With the store cleared the suite passed 50 randomized runs in a row."),
)

RELEASE_NOTES: tuple[Turn, ...] = (
    User("Draft release notes for 0.4.0 from the changelog and merged PRs."),
    Title("Draft release notes for 0.4.0"),
    Tool(
        "Bash",
        {"command": "git log --oneline --first-parent v0.3.0..v0.4.0"},
        "".join(f"<<sha:{subject}>> {subject}\n" for subject in RELEASE_040_SUBJECTS).rstrip(),
    ),
    Junk("unknown_type"),
    Assistant(
        "## payments-api 0.4.0\n\n- **Structured JSON logs** with a `request_id` on every "
        "line (#38), so one payment can be followed across workers.\n- `read_timeout` "
        "default raised to 10 s (3-D Secure flows).\n\nNot in this release: gateway retries "
        "(ABC-123, PR #41) and webhook signatures (PR #42)."
    ),
    User("also mention the runbook", delivery="unprocessed"),
    User("also mention the runbook, and keep it short"),
    Assistant(
        "Added one line: *On-call: start with `docs/runbook.md` — it covers ReadTimeoutError "
        "bursts and how to filter JSON logs by request id.*"
    ),
)

IDEMPOTENCY: tuple[Turn, ...] = (
    User(
        "ABC-131: design idempotency keys for POST /payments. Must be safe with the retries "
        "from ABC-123."
    ),
    Title("ABC-131: idempotency keys design"),
    Assistant(
        "Proposal:\n\n- Client sends `Idempotency-Key: <uuid>`; we store the first response "
        "under `(key, sha256(method, path, body))` for 24 h.\n- Same key, same body → replay "
        "the stored response. Same key, different body → 422, never a second charge.\n"
        "- The key is also passed to the processor as the charge `reference`, so even a "
        "retry that reaches the processor twice is deduplicated there.\n\n```python\n"
        'stored = store.lookup(key, IdempotencyStore.fingerprint("POST", path, body))\n'
        "if stored is not None:\n    return Response(stored.body, stored.status_code)\n```"
    ),
    Junk("torn"),
    Tool(
        "Write",
        {"file_path": "payments_api/idempotency.py"},
        "Wrote 36 lines to payments_api/idempotency.py",
    ),
    User("What about two concurrent requests with the same key?"),
    Assistant(
        "The in-memory store takes a lock and `save` uses `setdefault`, so the first writer "
        "wins. With Postgres (ABC-140) this becomes an `INSERT … ON CONFLICT DO NOTHING` on a "
        "unique `idempotency_key` column and the loser re-reads the winner's row."
    ),
)

LIVE_REVIEW: tuple[Turn, ...] = (
    User("Priya left review comments on PR #41 (ABC-123). Please address them."),
    Title("Address review comments on PR #41"),
    Tool(
        "gh",
        {"command": ["gh", "pr", "view", "41", "--comments"]},
        "priya: Can we make the attempts configurable via GATEWAY_MAX_RETRIES?\n"
        "marco: The jitter should use an injected rng in tests, the retry test is flaky.",
    ),
    Assistant(
        "1. `with_retries(attempts=settings.max_retries + 1)` so `GATEWAY_MAX_RETRIES` "
        "(default 2) bounds the retries.\n2. Marco's flaky-test comment is already handled: "
        "<<sha:ABC-123: fix flaky retry test by injecting the rng>> passes `rng=random.Random(1)`."
    ),
    User("Go ahead and push when the tests pass", delivery=None),
)


@dataclass(frozen=True)
class ChatPlan:
    """One chat session: metadata and its turns."""

    id: str
    lane_id: str
    tool: str
    days_ago: float
    turns: tuple[Turn, ...]
    archived: bool = False
    running: bool = False
    compacted: bool = False
    utc_offset_hours: int = 0


CHATS: tuple[ChatPlan, ...] = (
    ChatPlan("chat-readtimeout-triage", "primary", "claude", 8.09, READTIMEOUT_TRIAGE),
    ChatPlan("chat-abc123-backoff", "abc-123-retry", "claude", 6.77, BACKOFF),
    ChatPlan(
        "chat-connect-timeout", "abc-123-retry", "codex", 2.03, CONNECT_TIMEOUT, utc_offset_hours=2
    ),
    ChatPlan("chat-webhook-signatures", "webhooks", "claude", 6.47, WEBHOOK_SIGNATURES),
    ChatPlan("chat-webhook-replay", "webhooks", "codex", 2.81, WEBHOOK_REPLAY, compacted=True),
    ChatPlan("chat-flaky-refund-test", "primary", "claude", 26.5, FLAKY_REFUND, archived=True),
    ChatPlan("chat-release-notes", "primary", "claude", 5.75, RELEASE_NOTES),
    ChatPlan("chat-idempotency-design", "primary", "claude", 5.15, IDEMPOTENCY),
    ChatPlan("chat-pr41-review", "abc-123-retry", "claude", 0.02, LIVE_REVIEW, running=True),
)
"""Every chat session of the demo (ids are file names, so they match the session-id regex)."""
