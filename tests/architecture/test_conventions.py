"""One logging convention and one hashing convention (ARCHITECTURE.md, conventions).

Every module logs through ``engine.basics.logs.get_logger(__name__)`` (or the audit trail,
``AUDIT_LOGGER``), so every logger sits under the one the daemon configures; only
``engine.rpc.daemon`` configures ``logging`` itself. Every digest comes from
``engine.basics.digests``, never from ``hashlib`` (which loads OpenSSL) or the built-in digest
modules directly.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.architecture.imports import ROOT

HASHING = {"hashlib", "_hashlib", "_blake2", "_sha1", "_sha2", "_sha256", "_sha512", "_md5"}
HASHING_HOME = "engine/basics/digests.py"
LOGGING_HOMES = {"engine/basics/logs.py", "engine/rpc/daemon.py"}
"""``logs`` wraps ``logging``; the daemon's ``configure_logging`` attaches its handlers."""
LOGGER_NAMES = {"__name__", "AUDIT_LOGGER"}


def _imported(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name.split(".")[0] for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module.split(".")[0]]
    return []


def _named_otherwise(node: ast.AST) -> bool:
    """A ``get_logger(...)`` call whose name is not the module's (or the audit trail)."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "get_logger"
    ):
        return False
    arg = node.args[0] if len(node.args) == 1 else None
    return not (isinstance(arg, ast.Name) and arg.id in LOGGER_NAMES)


def convention_breaks(root: Path, package: str) -> list[str]:
    """Imports of hashing or ``logging`` outside their homes, and loggers named otherwise."""
    found = []
    for path in sorted((root / package).rglob("*.py")):
        where = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            line = f"{where}:{getattr(node, 'lineno', 0)}"
            for top in _imported(node):
                if top in HASHING and where != HASHING_HOME:
                    found.append(f"{line}: digests come from engine.basics.digests ({top})")
                if top == "logging" and where not in LOGGING_HOMES:
                    found.append(f"{line}: log through engine.basics.logs.get_logger")
            if _named_otherwise(node):
                found.append(f"{line}: a logger is named get_logger(__name__)")
    return found


def test_one_logging_and_one_hashing_convention() -> None:
    found = convention_breaks(ROOT, "engine") + convention_breaks(ROOT, "tui")
    assert not found, "\n".join(found)


def test_the_convention_check_sees_a_planted_break(tmp_path: Path) -> None:
    (tmp_path / "tui").mkdir()
    (tmp_path / "tui" / "planted.py").write_text(
        "import hashlib\nimport logging\nfrom engine.basics.logs import get_logger\n"
        "def f():\n    from _blake2 import blake2b\n"
        'log = get_logger("ade.elsewhere")\n',
        "utf-8",
    )
    found = convention_breaks(tmp_path, "tui")
    assert sorted(f.split(": ", 1)[1].split(" ")[0] for f in found) == [
        "a", "digests", "digests", "log"
    ]  # fmt: skip
