"""Record the terminal sessions that need a tool a user's machine may lack (run once, by hand).

``python -m engine.demo.record`` runs a failing pytest suite and a crashing Python program on a
real PTY inside a scratch ``payments-api`` folder, replaces the scratch path with a fixed one and
fixes the durations, and writes the bytes to ``engine/demo/recordings/``. ``ade demo`` ships those
bytes instead of running pytest (which may not be installed) or a Python whose traceback format
differs by version.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

from engine.demo.pty_capture import capture, capture_env
from engine.demo.terminals import RECORDINGS

"""Where the shipped recordings live (package data)."""

FIXED_ROOT = b"/home/dev/payments-api"
"""The project path recordings show instead of the scratch folder they ran in."""

PYTEST_FILE = '''\
import pytest


class ReadTimeoutError(OSError):
    """Stand-in for urllib3.exceptions.ReadTimeoutError."""


class FlakyProcessor:
    def __init__(self, failures):
        self.failures = failures
        self.calls = 0

    def charge(self, amount_cents):
        self.calls += 1
        if self.calls <= self.failures:
            raise ReadTimeoutError(
                "HTTPSConnectionPool(host='api.processor.test', port=443): "
                "Read timed out. (read timeout=10.0)"
            )
        return {"id": "ch_1", "amount": amount_cents}


def backoff_delays(attempts, base=0.25, cap=8.0):
    return [min(cap, base * 2 ** n) for n in range(1, attempts + 1)]


def charge_with_retries(processor, amount_cents, attempts=3):
    for _ in range(attempts - 2):
        try:
            return processor.charge(amount_cents)
        except ReadTimeoutError:
            pass
    return processor.charge(amount_cents)


def test_succeeds_first_time():
    assert charge_with_retries(FlakyProcessor(0), 1250)["id"] == "ch_1"


def test_retries_after_read_timeout():
    processor = FlakyProcessor(failures=2)
    assert charge_with_retries(processor, 1250)["amount"] == 1250
    assert processor.calls == 3


def test_backoff_doubles_and_caps():
    assert backoff_delays(7) == [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 8.0]


@pytest.mark.parametrize("attempts", [1, 2, 4])
def test_delays_never_exceed_cap(attempts):
    assert max(backoff_delays(attempts)) <= 8.0
'''

GATEWAY = """\
class ReadTimeoutError(OSError):
    pass


class GatewayError(RuntimeError):
    pass


def post(path, timeout):
    raise ReadTimeoutError(
        f"HTTPSConnectionPool(host='api.processor.test', port=443): Read timed out. "
        f"(read timeout={timeout})"
    )


def charge(payment_id, amount_cents, read_timeout=10.0):
    try:
        return post("/v1/charges", read_timeout)
    except ReadTimeoutError as err:
        raise GatewayError(f"processor did not answer within {read_timeout}s") from err
"""

WORKER = """\
from payments_api import gateway

PENDING = [("pay_3f9a1c", 1250), ("pay_77b0e2", 4999)]


def settle_pending():
    for payment_id, amount in PENDING:
        print(f"settling {payment_id} ({amount} cents)")
        gateway.charge(payment_id, amount)


if __name__ == "__main__":
    settle_pending()
"""

DURATION = re.compile(rb" in \d+\.\d+s\b")
"""pytest's run time in its summary line: a timing the recording must not keep."""

ADDRESS = re.compile(rb" at 0x[0-9a-f]+>")
"""Object addresses in reprs (``<… object at 0x7f…>``) change on every run."""


def _normalize(data: bytes, scratch: Path) -> bytes:
    data = data.replace(str(scratch).encode(), FIXED_ROOT)
    return ADDRESS.sub(b" at 0x7f3a2c1d9e50>", data)


def record_pytest(root: Path) -> bytes:
    (root / "tests").mkdir()
    (root / "tests" / "test_gateway_retry.py").write_text(PYTEST_FILE)
    env = capture_env(
        {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTEST_ADDOPTS": "-p no:cacheprovider"}
    )
    argv = [sys.executable, "-m", "pytest", "--color=yes", "tests/test_gateway_retry.py"]
    data, _ = capture(argv, cwd=root, env=env)
    return DURATION.sub(b" in 0.12s", _normalize(data, root))


def record_traceback(root: Path) -> bytes:
    package = root / "payments_api"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "gateway.py").write_text(GATEWAY)
    (package / "worker.py").write_text(WORKER)
    data, _ = capture([sys.executable, "-m", "payments_api.worker"], cwd=root, env=capture_env())
    return _normalize(data, root)


def main() -> int:
    for name, recorder in (
        ("pytest-failure", record_pytest),
        ("python-traceback", record_traceback),
    ):
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch).resolve() / "payments-api"
            root.mkdir()
            (RECORDINGS / f"{name}.log").write_bytes(recorder(root))
        print(f"recorded {name}.log", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
