"""The optional hybrid layer for meaning (docs/semantic.md): ``pip install 'ade-search[semantic]'``.

A small static embedding model whose weights come inside its wheel (WordLlama, 256 dimensions,
nothing downloaded at run time) gives each indexed document a vector, kept in the index beside
its row (``store``); a query asks for it with ``mode:semantic`` or gets it when the lexical steps
find too little, and its ranking is fused with BM25's by reciprocal rank (``hybrid``). Without
the extra every part of this package answers "not installed" and search is lexical only.
"""

from __future__ import annotations

import functools
import importlib.util
import os

DISABLE_ENV = "ADE_SEMANTIC"
"""``ADE_SEMANTIC=0`` turns the layer off although the extra is installed (a benchmark's baseline,
a machine where the model's memory matters)."""


@functools.cache
def installed() -> bool:
    """Whether the extra's model package is importable (checked without importing it)."""
    return importlib.util.find_spec("wordllama") is not None


def enabled() -> bool:
    """Installed and not switched off with ``ADE_SEMANTIC=0``."""
    return os.environ.get(DISABLE_ENV, "1") != "0" and installed()
