"""Nobody reaches into another object's private parts (ARCHITECTURE.md, whole classes).

``x._name`` is read only by the module that defines ``_name``: a class's own methods (through
``self``, ``cls`` or ``super()``), or functions of its module. Code that needs what another
class keeps private asks for a public method, or is handed a collaborator through its
constructor; a class split over files as mixins that read each other's ``_state`` is what this
keeps out. A module's private name (``other_module._helper``) is never read from outside it.
Checked in every Python file under engine/, tui/ and benchmarks/ (tests may look inside).
"""

from __future__ import annotations

import ast

from tests.architecture.imports import ROOT, is_module

CHECKED = ("engine", "tui", "benchmarks")

ALLOWED = {
    "os._exit": "leave a forked child without running the parent's clean-up",
    "index_documents._ZLIB_LEVEL": "the shape benchmark varies the body compression level: "
    "a module knob until the write path's settings (WriteTuning) take it",
}
"""Private names that have no public spelling (the standard library's), each with why."""

NAMEDTUPLE_API = frozenset({"_replace", "_asdict", "_fields", "_make", "_field_defaults"})
"""A named tuple's public methods begin with an underscore so they cannot clash with fields."""


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _defined_here(tree: ast.AST) -> set[str]:
    """The private names this module defines: functions, classes, attributes it assigns
    (``self._x = …``), names it binds or annotates."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return {name for name in names if _is_private(name)}


def _imported_modules(tree: ast.AST) -> set[str]:
    """Local names bound to a module by an import (``import os``, ``from engine import x``
    when ``engine.x`` is a module)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                if is_module(f"{node.module}.{alias.name}"):
                    names.add(alias.asname or alias.name)
    return names


def _own(value: ast.expr) -> bool:
    """``self``, ``cls`` or ``super()``: an object reading its own attributes."""
    if isinstance(value, ast.Name):
        return value.id in ("self", "cls")
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "super"
    )


def private_reads(source: str) -> list[tuple[int, str]]:
    """Each ``x._name`` in ``source`` that reads another module's private name: line, text."""
    tree = ast.parse(source)
    mine = _defined_here(tree)
    modules = _imported_modules(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or not _is_private(node.attr):
            continue
        if _own(node.value) or node.attr in NAMEDTUPLE_API:
            continue
        text = f"{ast.unparse(node.value)}.{node.attr}"
        if text in ALLOWED:
            continue
        of_a_module = isinstance(node.value, ast.Name) and node.value.id in modules
        if node.attr in mine and not of_a_module:
            continue  # the module that defines it
        found.append((node.lineno, text))
    return sorted(found)


def test_the_checker_sees_a_collaborator_and_a_module_read_privately() -> None:
    planted = (
        "from engine.redaction import rules\n"
        "class Status:\n"
        "    def __init__(self, service):\n"
        "        self._service = service\n"
        "    def state(self):\n"
        "        if rules._automaton is None:\n"
        "            return self._service._state()\n"
        "        return super()._fallback()\n"
    )
    assert private_reads(planted) == [(6, "rules._automaton"), (7, "self._service._state")]


def test_the_checker_leaves_a_module_its_own_names() -> None:
    own = (
        "import os\n"
        "class Box:\n"
        "    def __init__(self):\n"
        "        self._items = []\n"
        "    def merged(self, other: 'Box'):\n"
        "        return self._items + other._items\n"
        "def child():\n"
        "    os._exit(0)\n"
        "row = point._replace(x=1)\n"
    )
    assert private_reads(own) == []


def test_no_code_reads_another_modules_private_names() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text}"
        for top in CHECKED
        for path in sorted((ROOT / top).rglob("*.py"))
        for line, text in private_reads(path.read_text("utf-8"))
    ]
    assert not found, (
        "private names read from outside the module that defines them (add a public method, "
        "or hand the collaborator in):\n" + "\n".join(found)
    )
