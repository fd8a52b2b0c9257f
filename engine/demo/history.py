"""The demo repository's commit history as data: who changed what, on which branch, in order.

Steps are chronological; a step whose branch does not exist yet forks it from ``base``'s tip at
that moment, and a step with ``merge`` records a merge commit (how GitHub merges a PR).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.demo import branch_files as bf
from engine.demo.repo_files import FILES

ALL_FILES: dict[str, str] = {
    **FILES,
    "payments_api/retry.py": bf.RETRY,
    "tests/test_retry.py": bf.TEST_RETRY,
    "payments_api/webhooks.py": bf.WEBHOOKS,
    "payments_api/routes/webhooks.py": bf.ROUTES_WEBHOOKS,
    "tests/test_webhooks.py": bf.TEST_WEBHOOKS,
    "payments_api/idempotency.py": bf.IDEMPOTENCY,
    "payments_api/logging.py": bf.LOGGING,
    ".github/workflows/ci.yml": bf.CI_WORKFLOW,
    "docs/adr/0003-retry-policy.md": bf.ADR_RETRY,
}
"""Every file a step can ``add`` by path."""

AUTHORS: dict[str, tuple[str, str]] = {
    "dana": ("Dana Ruiz", "dana@acme.dev"),
    "priya": ("Priya Natarajan", "priya@acme.dev"),
    "marco": ("Marco Bianchi", "marco@acme.dev"),
    "github": ("GitHub", "noreply@github.com"),
}
"""Commit identities (fixed, so shas are identical on every build)."""

AGENT_TRAILER = "\n\nCo-Authored-By: Claude <noreply@anthropic.com>"
"""Lane commits made by a coding agent carry this trailer, as agent tools write it."""

RETRY_BRANCH = "feature/ABC-123-retry-backoff"
WEBHOOK_BRANCH = "feature/webhook-signatures"
IDEMPOTENCY_BRANCH = "fix/ABC-131-idempotency-keys"
LOGGING_BRANCH = "feature/structured-logging"
CI_BRANCH = "chore/ci-python-3.12"

Edit = tuple[str, str, str]
"""(path, old text, new text): one exact replacement in a file."""


@dataclass(frozen=True)
class Step:
    """One commit: files added from ``ALL_FILES``, then edits and appends, in that order."""

    branch: str
    author: str
    subject: str
    body: str = ""
    add: tuple[str, ...] = ()
    edits: tuple[Edit, ...] = ()
    appends: tuple[tuple[str, str], ...] = ()
    base: str = "main"
    merge: str | None = None
    tag: str | None = None


_APP_NO_REFUNDS: tuple[Edit, ...] = (
    ("payments_api/app.py", "import payments, refunds\n", "import payments\n"),
    (
        "payments_api/app.py",
        '"/payments")\napp.include_router(refunds.router, prefix="/refunds")\n',
        '"/payments")\n',
    ),
)
_READ_5S: tuple[Edit, ...] = (
    ("payments_api/config.py", "read_timeout: float = 10.0", "read_timeout: float = 5.0"),
    ("payments_api/config.py", '"GATEWAY_READ_TIMEOUT", "10"', '"GATEWAY_READ_TIMEOUT", "5"'),
)


def _undo(edits: tuple[Edit, ...]) -> tuple[Edit, ...]:
    return tuple((path, new, old) for path, old, new in edits)


_M = "main"
STEPS: tuple[Step, ...] = (
    Step(
        _M,
        "dana",
        "Initial commit",
        add=(".gitignore", "README.md", "pyproject.toml", "CHANGELOG.md"),
        edits=(
            ("pyproject.toml", 'version = "0.4.0"', 'version = "0.2.0"'),
            ("pyproject.toml", "urllib3>=2.2", "urllib3>=2.0"),
        ),
    ),
    Step(
        _M,
        "dana",
        "Add settings module with gateway timeouts",
        "connect_timeout defaults to 3.05 s, just above the 3 s TCP SYN retransmit, so one lost\n"
        "SYN does not fail the request. read_timeout starts at 5 s.",
        add=("payments_api/__init__.py", "payments_api/config.py"),
        edits=(("payments_api/__init__.py", '"0.4.0"', '"0.2.0"'), *_READ_5S),
    ),
    Step(_M, "priya", "Add payment and refund models", add=("payments_api/models.py",)),
    Step(
        _M,
        "dana",
        "Add processor gateway client",
        "All processor calls go through GatewayClient so timeouts live in one place.\n"
        "urllib3 retries are disabled: we decide about retries ourselves.",
        add=("payments_api/gateway.py",),
    ),
    Step(_M, "dana", "Add in-memory payment store", add=("payments_api/store.py",)),
    Step(
        _M,
        "priya",
        "Add POST /payments and GET /payments/{id}",
        add=("payments_api/routes/__init__.py", "payments_api/routes/payments.py"),
    ),
    Step(
        _M,
        "priya",
        "Add FastAPI app and /healthz",
        add=("payments_api/app.py",),
        edits=_APP_NO_REFUNDS,
    ),
    Step(_M, "marco", "Add test client fixture with a fake gateway", add=("tests/conftest.py",)),
    Step(_M, "marco", "Test payment creation and unknown ids", add=("tests/test_payments.py",)),
    Step(
        _M,
        "priya",
        "Add POST /refunds with partial refunds",
        "A refund without an amount refunds the remaining balance.",
        add=("payments_api/routes/refunds.py",),
        edits=_undo(_APP_NO_REFUNDS),
    ),
    Step(_M, "marco", "Test partial refunds and over-refunds", add=("tests/test_refunds.py",)),
    Step(
        _M,
        "dana",
        "Add Makefile with dev and test targets",
        add=("Makefile",),
        edits=(
            ("Makefile", "\nlint:\n\truff check payments_api tests\n", ""),
            ("Makefile", ".PHONY: dev test lint", ".PHONY: dev test"),
        ),
    ),
    Step(_M, "dana", "Document the architecture", add=("docs/architecture.md",)),
    Step(_M, "priya", "Add runbook for processor timeouts", add=("docs/runbook.md",)),
    Step(
        _M,
        "marco",
        "Pin urllib3>=2.2 for the Timeout API",
        edits=(("pyproject.toml", "urllib3>=2.0", "urllib3>=2.2"),),
    ),
    Step(
        _M,
        "marco",
        "Add ruff lint target",
        edits=(("Makefile", ".PHONY: dev test", ".PHONY: dev test lint"),),
        appends=(("Makefile", "\nlint:\n\truff check payments_api tests\n"),),
    ),
    Step(
        _M,
        "dana",
        "Release 0.3.0",
        tag="v0.3.0",
        edits=(
            ("pyproject.toml", '"0.2.0"', '"0.3.0"'),
            ("payments_api/__init__.py", '"0.2.0"', '"0.3.0"'),
        ),
        appends=(
            (
                "CHANGELOG.md",
                "\n## 0.3.0 (2026-05-27)\n\n- Refunds, including partial refunds.\n"
                "- Gateway connect_timeout and read_timeout are configurable.\n",
            ),
        ),
    ),
    Step(
        LOGGING_BRANCH,
        "marco",
        "Add JSON log formatter with request ids",
        add=("payments_api/logging.py",),
    ),
    Step(
        _M,
        "priya",
        "README: document GATEWAY_MAX_RETRIES",
        appends=(
            (
                "README.md",
                "\n`GATEWAY_MAX_RETRIES` (default 2) bounds retries of idempotent calls.\n",
            ),
        ),
    ),
    Step(
        LOGGING_BRANCH,
        "marco",
        "Configure JSON logging at startup",
        edits=(
            (
                "payments_api/app.py",
                "from payments_api.gateway import GatewayClient\n",
                "from payments_api.gateway import GatewayClient\n"
                "from payments_api.logging import configure_logging\n",
            ),
            (
                "payments_api/app.py",
                "settings = load_settings()\n",
                "configure_logging()\nsettings = load_settings()\n",
            ),
        ),
    ),
    Step(
        _M,
        "github",
        "Merge pull request #38 from acme/feature/structured-logging",
        "Structured JSON logging with request ids",
        merge=LOGGING_BRANCH,
    ),
    Step(
        _M,
        "priya",
        "Runbook: reading ReadTimeoutError bursts in the JSON logs",
        appends=(
            (
                "docs/runbook.md",
                "\n## Finding one payment in the logs\n\n"
                "Logs are JSON lines; filter on `request_id` to follow one payment:\n\n"
                "    jq 'select(.request_id == \"req_8f2c\")' < app.log\n",
            ),
        ),
    ),
    Step(
        _M,
        "dana",
        "Architecture: note the planned Postgres store",
        appends=(
            (
                "docs/architecture.md",
                "\nThe in-memory store goes away with the Postgres migration "
                "(tracked in ABC-140).\n",
            ),
        ),
    ),
    Step(
        _M,
        "marco",
        "Changelog: structured logging",
        appends=(("CHANGELOG.md", "\n- Unreleased: JSON logs with request ids (#38).\n"),),
    ),
    Step(
        _M,
        "dana",
        "Raise read_timeout to 10 s for 3-D Secure flows",
        "The processor's 3-D Secure challenge regularly takes 6-8 s; 5 s produced a\n"
        "ReadTimeoutError for roughly 2% of EU card payments.",
        edits=_undo(_READ_5S),
    ),
    Step(
        CI_BRANCH,
        "marco",
        "CI: run the tests on Python 3.11 and 3.12",
        add=(".github/workflows/ci.yml",),
    ),
    Step(
        RETRY_BRANCH,
        "dana",
        "ABC-123: add exponential backoff helper",
        "We agreed to use exponential backoff with full jitter instead of the fixed 1 s retry."
        + AGENT_TRAILER,
        add=("payments_api/retry.py",),
    ),
    Step(
        WEBHOOK_BRANCH,
        "priya",
        "Add HMAC-SHA256 webhook signature verification" + "",
        "Processor-Signature: t=<ts>,v1=<hex>; constant-time comparison." + AGENT_TRAILER,
        add=("payments_api/webhooks.py",),
    ),
    Step(
        RETRY_BRANCH,
        "dana",
        "ABC-123: test that backoff doubles and caps at 8 s" + "",
        AGENT_TRAILER.strip(),
        add=("tests/test_retry.py",),
    ),
    Step(
        _M,
        "priya",
        "Release 0.4.0",
        tag="v0.4.0",
        edits=(
            ("pyproject.toml", '"0.3.0"', '"0.4.0"'),
            ("payments_api/__init__.py", '"0.3.0"', '"0.4.0"'),
        ),
        appends=(("CHANGELOG.md", "\n## 0.4.0 (2026-06-09)\n\n- JSON logging (#38).\n"),),
    ),
    Step(
        IDEMPOTENCY_BRANCH,
        "marco",
        "ABC-131: idempotency store keyed by Idempotency-Key",
        add=("payments_api/idempotency.py",),
    ),
    Step(
        RETRY_BRANCH,
        "dana",
        "ABC-123: retry gateway calls on ReadTimeoutError",
        "Only ReadTimeoutError and ConnectTimeoutError are retried; a 4xx never is."
        + AGENT_TRAILER,
        edits=(
            (
                "payments_api/gateway.py",
                "from payments_api.config import Settings\n",
                "from payments_api.config import Settings\nfrom payments_api.retry import with_retries\n",
            ),
            (
                "payments_api/gateway.py",
                'response = self._http.request("POST", url, body=json.dumps(body))',
                'response = with_retries(\n                lambda: self._http.request("POST", url, body=json.dumps(body))\n            )',
            ),
        ),
    ),
    Step(
        WEBHOOK_BRANCH,
        "priya",
        "Add POST /webhooks/processor",
        AGENT_TRAILER.strip(),
        add=("payments_api/routes/webhooks.py",),
        edits=(
            (
                "payments_api/app.py",
                "import payments, refunds",
                "import payments, refunds, webhooks",
            ),
            (
                "payments_api/app.py",
                'prefix="/refunds")\n',
                'prefix="/refunds")\napp.include_router(webhooks.router, prefix="/webhooks")\n',
            ),
        ),
    ),
    Step(
        CI_BRANCH,
        "marco",
        "CI: cache pip downloads",
        edits=(
            (
                ".github/workflows/ci.yml",
                "python-version: ${{ matrix.python }}",
                "python-version: ${{ matrix.python }}\n          cache: pip",
            ),
        ),
    ),
    Step(
        RETRY_BRANCH,
        "dana",
        "ABC-123: ADR 0003 retry policy",
        add=("docs/adr/0003-retry-policy.md",),
    ),
    Step(
        _M,
        "dana",
        "Runbook: do not raise GATEWAY_READ_TIMEOUT past 30 s",
        appends=(("docs/runbook.md", "\nSee ADR 0003 for the retry policy once ABC-123 lands.\n"),),
    ),
    Step(
        WEBHOOK_BRANCH,
        "priya",
        "Test signature verification and the replay window",
        AGENT_TRAILER.strip(),
        add=("tests/test_webhooks.py",),
    ),
    Step(
        IDEMPOTENCY_BRANCH,
        "marco",
        "ABC-131: document idempotency keys",
        appends=(
            (
                "docs/architecture.md",
                "\n## Idempotency keys\n\nPOST /payments accepts an "
                "`Idempotency-Key` header; a retry with the same key returns the first response.\n",
            ),
        ),
    ),
    Step(
        RETRY_BRANCH,
        "dana",
        "ABC-123: lower connect_timeout to 2 s",
        "With retries in place a short connect_timeout fails over faster." + AGENT_TRAILER,
        edits=(
            (
                "payments_api/config.py",
                "connect_timeout: float = 3.05",
                "connect_timeout: float = 2.0",
            ),
            (
                "payments_api/config.py",
                '"GATEWAY_CONNECT_TIMEOUT", "3.05"',
                '"GATEWAY_CONNECT_TIMEOUT", "2"',
            ),
        ),
    ),
    Step(
        _M,
        "marco",
        "README: link the runbook",
        appends=(("README.md", "\nOn-call: start with `docs/runbook.md`.\n"),),
    ),
    Step(
        WEBHOOK_BRANCH,
        "priya",
        "Runbook: rotating WEBHOOK_SECRET",
        appends=(
            (
                "docs/runbook.md",
                "\n## Rotating WEBHOOK_SECRET\n\nSet the new secret, deploy, then "
                "revoke the old one in the processor dashboard.\n",
            ),
        ),
    ),
    Step(
        IDEMPOTENCY_BRANCH,
        "marco",
        "WIP: wire idempotency into POST /payments",
        edits=(
            (
                "payments_api/routes/payments.py",
                "from payments_api.gateway import GatewayError\n",
                "from payments_api.gateway import GatewayError\nfrom payments_api.idempotency import IdempotencyStore\n",
            ),
        ),
    ),
    Step(
        RETRY_BRANCH,
        "dana",
        "ABC-123: fix flaky retry test by injecting the rng",
        AGENT_TRAILER.strip(),
        appends=(
            (
                "tests/test_retry.py",
                "\n\ndef test_delays_are_deterministic_with_a_seed():\n"
                "    assert backoff_delays(2) == [0.25, 0.5]\n",
            ),
        ),
    ),
)
"""The whole history, oldest first (43 commits on 6 branches, one merge)."""
