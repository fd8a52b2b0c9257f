"""A warm in-process `ade search` compiles no Python source (start-up budget).

The interpreter's first ``compile()`` of a string builds the AST module's types, ~10 M
instructions of a ~306 M in-process search (benchmarks/journal/2026-12-08-inproc-start.md).
``typing.NamedTuple`` calls it once per field (``typing.ForwardRef`` checks each string
annotation under ``from __future__ import annotations``), so the records a search builds are
msgspec Structs, whose annotations are read only when a type is encoded or decoded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from cli_helpers import CLEAN_ENV, DEMO_NOW, ROOT, search_argv

COMPILE_PROBE = """
import builtins, sys
compiled = []
_compile = builtins.compile


def counting(source, *args, **kwargs):
    compiled.append(str(source)[:60])
    return _compile(source, *args, **kwargs)


builtins.compile = counting
from tui.cli import main
code = main(sys.argv[1:])
print(repr({"code": code, "compiled": compiled}))
"""


def _compiled(argv: list[str]) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in CLEAN_ENV}
    env["ADE_NOW"] = DEMO_NOW
    done = subprocess.run([sys.executable, "-c", COMPILE_PROBE, *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert done.stdout, done.stderr
    import ast

    report = ast.literal_eval(done.stdout.splitlines()[-1])
    assert report["code"] in (0, 1), done.stderr
    compiled: list[str] = report["compiled"]
    return compiled


def test_a_warm_search_compiles_no_python_source(queried_demo: Path) -> None:
    # the default kinds (file and lane delegates included), a terminal hit's page, a phrase
    for query in (["timeout"], ["kind:terminal", "error"], ['"timed out"']):
        assert _compiled(search_argv(queried_demo, *query, "--json")) == [], query


def test_the_probe_sees_a_named_tuple_compile_its_annotations() -> None:
    """The positive control: what the probe counts is what ``typing.NamedTuple`` does."""
    code = (
        "from __future__ import annotations\n"
        "import builtins, json\n"
        "seen = []\n"
        "_compile = builtins.compile\n"
        "builtins.compile = lambda s, *a, **k: (seen.append(s), _compile(s, *a, **k))[1]\n"
        "from typing import NamedTuple\n"
        "class Pair(NamedTuple):\n"
        "    left: int\n"
        "    right: str | None\n"
        "print(json.dumps(seen))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)  # fmt: skip
    assert json.loads(done.stdout) == ["int", "str | None"]
