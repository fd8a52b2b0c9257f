"""The optional hybrid layer for meaning (docs/semantic.md): ``pip install 'ade-search[semantic]'``.

A small static embedding model whose weights come inside its wheel (WordLlama, 256 dimensions,
nothing downloaded at run time) gives each indexed document a vector, kept in the index beside
its row (``store``); a query asks for it with ``mode:semantic`` or gets it when the lexical steps
find too little, and its ranking is fused with BM25's by reciprocal rank (``hybrid``). Without
the extra every part of this package answers "not installed" and search is lexical only.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import apsw

    from engine.index.vector_hook import VectorRow

DISABLE_ENV = "ADE_SEMANTIC"
"""``ADE_SEMANTIC=0`` turns the layer off although the extra is installed (a benchmark's baseline,
a machine where the model's memory matters)."""


@functools.cache
def installed() -> bool:
    """Whether the extra's model package is importable (checked without importing it)."""
    import importlib.util  # here: with ADE_SEMANTIC=0 a search never asks (~1.2 M instructions)

    return importlib.util.find_spec("wordllama") is not None


def enabled() -> bool:
    """Installed and not switched off with ``ADE_SEMANTIC=0``."""
    return os.environ.get(DISABLE_ENV, "1") != "0" and installed()


def hand_over_on_first_write(conn: apsw.Connection, rows: Sequence[VectorRow]) -> None:
    """The writer's vector sink (``engine.index.vector_hook``): hands the inserted documents to
    the vector store (``engine.semantic.store.hand_over``), importing the store, and numpy with
    it, only when a first document is written: a one-shot search whose catch-up writes nothing
    never loads it (~11 ms of its start-up, the start-up budget)."""
    from engine.semantic.store import hand_over

    hand_over(conn, rows)
