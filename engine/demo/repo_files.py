"""Source files of the demo repository: a small Python payments web service.

The text is what file search finds, so it mentions the same things the chats and PRs discuss
(``connect_timeout``, ``ReadTimeoutError``, exponential backoff, idempotency keys, ABC-123).
"""

from __future__ import annotations

GITIGNORE = """\
__pycache__/
*.pyc
.venv/
.ade/
.worktrees/
"""

README = """\
# payments-api

Small HTTP service in front of our card processor. It creates payments, issues refunds and
receives the processor's webhooks.

## Running locally

    make dev          # uvicorn with --reload on :8080
    make test         # pytest, coverage in htmlcov/

Configuration comes from the environment (see `payments_api/config.py`): `GATEWAY_URL`,
`GATEWAY_CONNECT_TIMEOUT`, `GATEWAY_READ_TIMEOUT`, `WEBHOOK_SECRET`.
"""

PYPROJECT = """\
[project]
name = "payments-api"
version = "0.4.0"
requires-python = ">=3.11"
dependencies = ["fastapi>=0.110", "uvicorn>=0.29", "urllib3>=2.2", "pydantic>=2.6"]

[project.optional-dependencies]
test = ["pytest>=8", "pytest-cov>=5", "responses>=0.25"]
"""

MAKEFILE = """\
.PHONY: dev test lint

dev:
\tuvicorn payments_api.app:app --reload --port 8080

test:
\tpytest --cov=payments_api --cov-report=html

lint:
\truff check payments_api tests
"""

INIT = '''\
"""payments-api: create payments, refunds and receive processor webhooks."""

__version__ = "0.4.0"
'''

CONFIG = '''\
"""Settings read once from the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    gateway_url: str
    connect_timeout: float = 3.05
    read_timeout: float = 10.0
    max_retries: int = 2
    webhook_secret: str = ""


def load_settings() -> Settings:
    """Build the settings; timeouts are seconds (urllib3 wants floats)."""
    return Settings(
        gateway_url=os.environ.get("GATEWAY_URL", "https://api.processor.test"),
        connect_timeout=float(os.environ.get("GATEWAY_CONNECT_TIMEOUT", "3.05")),
        read_timeout=float(os.environ.get("GATEWAY_READ_TIMEOUT", "10")),
        max_retries=int(os.environ.get("GATEWAY_MAX_RETRIES", "2")),
        webhook_secret=os.environ.get("WEBHOOK_SECRET", ""),
    )
'''

MODELS = '''\
"""Request and response bodies."""

from __future__ import annotations

from decimal import Decimal
from enum import Enum

from pydantic import BaseModel, Field


class PaymentStatus(str, Enum):
    PENDING = "pending"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    REFUNDED = "refunded"


class CreatePayment(BaseModel):
    amount: Decimal = Field(gt=0, max_digits=12, decimal_places=2)
    currency: str = Field(min_length=3, max_length=3)
    customer_id: str
    description: str = ""


class Payment(BaseModel):
    id: str
    amount: Decimal
    currency: str
    status: PaymentStatus
    processor_ref: str | None = None


class CreateRefund(BaseModel):
    payment_id: str
    amount: Decimal | None = None  # None refunds the remaining balance
    reason: str = "requested_by_customer"
'''

GATEWAY = '''\
"""HTTP client for the card processor."""

from __future__ import annotations

import json
import logging

import urllib3
from urllib3.exceptions import ReadTimeoutError

from payments_api.config import Settings

log = logging.getLogger(__name__)


class GatewayError(RuntimeError):
    """The processor answered with an error or did not answer in time."""


class GatewayClient:
    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._http = urllib3.PoolManager(
            timeout=urllib3.Timeout(
                connect=settings.connect_timeout, read=settings.read_timeout
            ),
            retries=False,
        )

    def charge(self, payment_id: str, amount_cents: int, currency: str) -> dict:
        body = {"reference": payment_id, "amount": amount_cents, "currency": currency}
        return self._post("/v1/charges", body)

    def refund(self, charge_ref: str, amount_cents: int) -> dict:
        return self._post(f"/v1/charges/{charge_ref}/refunds", {"amount": amount_cents})

    def _post(self, path: str, body: dict) -> dict:
        url = self._settings.gateway_url + path
        try:
            response = self._http.request("POST", url, body=json.dumps(body))
        except ReadTimeoutError as err:
            log.warning("gateway read timeout on %s", path)
            raise GatewayError(f"processor did not answer within {self._settings.read_timeout}s") from err
        if response.status >= 400:
            raise GatewayError(f"processor said {response.status}: {response.data[:200]!r}")
        return json.loads(response.data)
'''

APP = '''\
"""The FastAPI application."""

from __future__ import annotations

from fastapi import FastAPI

from payments_api.config import load_settings
from payments_api.gateway import GatewayClient
from payments_api.routes import payments, refunds

settings = load_settings()
app = FastAPI(title="payments-api")
app.state.gateway = GatewayClient(settings)
app.include_router(payments.router, prefix="/payments")
app.include_router(refunds.router, prefix="/refunds")


@app.get("/healthz")
def healthz() -> dict[str, str]:
    return {"status": "ok"}
'''

ROUTES_INIT = '"""HTTP routes, one module per resource."""\n'

ROUTES_PAYMENTS = '''\
"""POST /payments and GET /payments/{id}."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, HTTPException, Request

from payments_api.gateway import GatewayError
from payments_api.models import CreatePayment, Payment, PaymentStatus
from payments_api.store import PAYMENTS

router = APIRouter()


@router.post("", status_code=201)
def create_payment(body: CreatePayment, request: Request) -> Payment:
    payment = Payment(
        id=f"pay_{uuid.uuid4().hex[:16]}",
        amount=body.amount,
        currency=body.currency.upper(),
        status=PaymentStatus.PENDING,
    )
    try:
        result = request.app.state.gateway.charge(
            payment.id, int(body.amount * 100), payment.currency
        )
    except GatewayError as err:
        raise HTTPException(status_code=502, detail=str(err)) from err
    payment = payment.model_copy(
        update={"status": PaymentStatus.SUCCEEDED, "processor_ref": result["id"]}
    )
    PAYMENTS[payment.id] = payment
    return payment


@router.get("/{payment_id}")
def get_payment(payment_id: str) -> Payment:
    if payment_id not in PAYMENTS:
        raise HTTPException(status_code=404, detail="unknown payment")
    return PAYMENTS[payment_id]
'''

ROUTES_REFUNDS = '''\
"""POST /refunds: full or partial refunds of a succeeded payment."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request

from payments_api.models import CreateRefund, PaymentStatus
from payments_api.store import PAYMENTS

router = APIRouter()


@router.post("", status_code=201)
def create_refund(body: CreateRefund, request: Request) -> dict:
    payment = PAYMENTS.get(body.payment_id)
    if payment is None or payment.status is not PaymentStatus.SUCCEEDED:
        raise HTTPException(status_code=409, detail="payment cannot be refunded")
    amount = body.amount if body.amount is not None else payment.amount
    if amount > payment.amount:
        raise HTTPException(status_code=422, detail="refund exceeds the payment amount")
    result = request.app.state.gateway.refund(payment.processor_ref, int(amount * 100))
    return {"refund_id": result["id"], "payment_id": payment.id, "amount": str(amount)}
'''

STORE = '''\
"""In-memory store until the Postgres migration (see docs/architecture.md)."""

from __future__ import annotations

from payments_api.models import Payment

PAYMENTS: dict[str, Payment] = {}
'''

TESTS_CONFTEST = """\
from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from payments_api.app import app
from payments_api.store import PAYMENTS


class FakeGateway:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    def charge(self, payment_id: str, amount_cents: int, currency: str) -> dict:
        self.calls.append((payment_id, amount_cents))
        return {"id": f"ch_{len(self.calls)}"}

    def refund(self, charge_ref: str, amount_cents: int) -> dict:
        return {"id": f"re_{charge_ref}"}


@pytest.fixture()
def client() -> TestClient:
    PAYMENTS.clear()
    app.state.gateway = FakeGateway()
    return TestClient(app)
"""

TEST_PAYMENTS = """\
def test_create_payment_returns_201(client):
    response = client.post(
        "/payments", json={"amount": "12.50", "currency": "eur", "customer_id": "cus_1"}
    )
    assert response.status_code == 201
    assert response.json()["currency"] == "EUR"


def test_unknown_payment_is_404(client):
    assert client.get("/payments/pay_missing").status_code == 404
"""

TEST_REFUNDS = """\
def _pay(client, amount="20.00"):
    body = {"amount": amount, "currency": "usd", "customer_id": "cus_2"}
    return client.post("/payments", json=body).json()["id"]


def test_refund_partial(client):
    payment_id = _pay(client)
    response = client.post("/refunds", json={"payment_id": payment_id, "amount": "5.00"})
    assert response.status_code == 201
    assert response.json()["amount"] == "5.00"


def test_refund_more_than_paid_is_422(client):
    payment_id = _pay(client, "3.00")
    response = client.post("/refunds", json={"payment_id": payment_id, "amount": "4.00"})
    assert response.status_code == 422
"""

ARCHITECTURE = """\
# Architecture

```
client ──HTTPS──▶ payments-api ──HTTPS──▶ card processor
                      │  ▲
                      ▼  │ webhooks (HMAC-SHA256 signed)
                  Postgres (planned; in-memory store today)
```

* Every call to the processor goes through `GatewayClient` so timeouts and retries live in one
  place. `connect_timeout` is short (3.05 s: just above the 3 s TCP retransmit), `read_timeout`
  is long because the processor's 3-D Secure step can take several seconds.
* Payments are created with a client-supplied reference so a retried request never charges twice.
"""

RUNBOOK = """\
# Runbook

## Processor timeouts (`ReadTimeoutError` in the logs)

1. Check the processor status page.
2. Look at `gateway read timeout` warnings in the last hour; a burst usually means the
   processor's EU region is degraded.
3. Do not raise `GATEWAY_READ_TIMEOUT` above 30 s: uvicorn workers block meanwhile.
"""

CHANGELOG = """\
# Changelog

## Unreleased
"""

FILES: dict[str, str] = {
    ".gitignore": GITIGNORE,
    "README.md": README,
    "pyproject.toml": PYPROJECT,
    "Makefile": MAKEFILE,
    "CHANGELOG.md": CHANGELOG,
    "payments_api/__init__.py": INIT,
    "payments_api/config.py": CONFIG,
    "payments_api/models.py": MODELS,
    "payments_api/gateway.py": GATEWAY,
    "payments_api/app.py": APP,
    "payments_api/store.py": STORE,
    "payments_api/routes/__init__.py": ROUTES_INIT,
    "payments_api/routes/payments.py": ROUTES_PAYMENTS,
    "payments_api/routes/refunds.py": ROUTES_REFUNDS,
    "tests/conftest.py": TESTS_CONFTEST,
    "tests/test_payments.py": TEST_PAYMENTS,
    "tests/test_refunds.py": TEST_REFUNDS,
    "docs/architecture.md": ARCHITECTURE,
    "docs/runbook.md": RUNBOOK,
}
"""Path → text of every file on ``main`` before history edits; commits add them in order."""
