"""Every import of ``engine/`` and ``tui/``, read with ``ast`` (module-level, function-level and
``TYPE_CHECKING`` imports alike: a deferred import is still a dependency)."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Import:
    source: str
    """The importing module, dotted (``tui.app``)."""
    target: str
    """The imported module, dotted; ``from a.b import c`` gives ``a.b.c`` when that is a module."""
    where: str
    """``path:line`` of the import statement."""


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(dotted: str) -> bool:
    base = ROOT.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _resolve(path: Path, level: int, module: str | None) -> str:
    if level == 0:
        return module or ""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - (level - 1)]
    return ".".join([*base, module] if module else base)


def imports_of(package: str) -> Iterator[Import]:
    """Every import statement in the ``.py`` files under ``package`` (``engine`` or ``tui``)."""
    yield from _read_imports(package)


@functools.cache
def _read_imports(package: str) -> tuple[Import, ...]:
    """The package's imports, parsed once per process: the architecture tests read them six
    times (~1.2 s of parsing each for ``engine`` and ``tui``), and the files do not change
    during a run."""
    return tuple(_parse_imports(package))


def _parse_imports(package: str) -> Iterator[Import]:
    for path in sorted((ROOT / package).rglob("*.py")):
        source = module_name(path)
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield Import(source, alias.name, where)
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(path, node.level, node.module)
                for alias in node.names:
                    dotted = f"{base}.{alias.name}"
                    yield Import(source, dotted if is_module(dotted) else base, where)
