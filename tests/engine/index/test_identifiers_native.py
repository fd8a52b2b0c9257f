"""``identifier_parts``' compiled twin (``engine/index/native/identifiers.c``) answers exactly what
the Python one does, on any text, and is built wherever a C compiler is."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.index import identifiers
from engine.index.identifiers import compiled_identifier_parts, python_identifier_parts


def test_compiled_twin_is_built_where_gcc_is() -> None:
    if shutil.which("gcc") is None:
        pytest.skip("no gcc: the install runs the Python twin")
    assert compiled_identifier_parts is not None, (
        "engine.index._identifiers_c did not build: `pip install -e .` again and read its output"
    )
    assert identifiers.identifier_parts is compiled_identifier_parts


ASCII_WORDS = st.lists(
    st.one_of(
        st.sampled_from(["Type", "Error", "HTTP", "URL", "Server", "get", "read", "x", "ID", "2",
                         "09", "ABc", "aB", "Z", "zz", "_", ".", " ", "\n", "é", "İ", "\ud800",
                         "→", "\U0001f600", "\x7f", "@", "[", "`", "{"]),
        st.text(alphabet="aAzZbB09", max_size=6),
    ),
    max_size=40,
).map("".join)  # fmt: skip
"""ASCII-heavy: camelCase, acronyms, digits and the class edges (``@[`{`` beside the letters),
with a few characters of 2- and 4-byte strings and a lone surrogate."""

ANY_TEXT = st.text(st.characters(), max_size=50)
"""Any code point, surrogates too (``characters()`` leaves none out; the Python twin encodes
with ``surrogatepass``)."""

TEXTS = st.lists(st.one_of(ASCII_WORDS, ANY_TEXT), max_size=3)


@settings(max_examples=1500, deadline=None)
@given(TEXTS)
@example(["AB1 ABc aB 1A AAA AAa", "HTTPServer httpServer HTTPSERVER2x"])
@example(["ABc", "Ab", "aBC", "ABC1d", "a1B", "9Z", "ZZZa", "ZZ9a"])
@example(["readTimeout " * 300 + "".join(f"w{i}X " for i in range(400))])  # grows the set
@example(["x" * 5000 + "Y\u00e9"])  # one long identifier, narrowed from a 2-byte string
def test_compiled_twin_answers_as_python(texts: list[str]) -> None:
    if compiled_identifier_parts is None:
        pytest.skip("not built (test_compiled_twin_is_built_where_gcc_is says why)")
    assert compiled_identifier_parts(*texts) == python_identifier_parts(*texts)


def test_compiled_twin_refuses_what_is_not_text() -> None:
    if compiled_identifier_parts is None:
        pytest.skip("not built")
    with pytest.raises(TypeError):
        compiled_identifier_parts("TypeError", b"TypeError")  # type: ignore[arg-type]


def test_without_the_compiled_modules_the_python_twins_run() -> None:
    """An install without a compiler: the imports fall back (a fresh interpreter, the compiled
    modules blocked), and the twins answer."""
    program = (
        "import sys\n"
        "sys.modules['engine.index._identifiers_c'] = None\n"
        "sys.modules['engine.terminal._escapes_c'] = None\n"
        "from engine.index import identifiers\n"
        "from engine.terminal import block\n"
        "assert identifiers.compiled_identifier_parts is None\n"
        "assert identifiers.identifier_parts is identifiers.python_identifier_parts\n"
        "assert block.strip_other_escapes is block.python_strip_other_escapes\n"
        "print(identifiers.identifier_parts('readTimeout'), block.clean_bytes(b'\\x1b[1mok'))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "read Timeout ok\n"
