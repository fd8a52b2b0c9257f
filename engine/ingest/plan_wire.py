"""A transcript pass's plan as the planning worker ships it: documents as plain tuples.

Pickling a plan's ``IndexDoc`` and derived-value objects (dataclasses: a class reference and a
state dict each) cost the writing process ~0.5 s of unpickling per 60 MB corpus, most of it
building the objects back; one tuple of fields per document loads ~8x faster and the objects
are rebuilt without ``__init__`` (benchmarks/RESULTS.md, issue 14.1, h-pipe). The writer is the
critical path of a first index, so what it spends receiving a plan is spent on the wall clock.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, replace
from typing import Any

from engine.index.db import IndexDoc, PreparedDocs
from engine.index.db import _Derived as Derived
from engine.ingest.tailing import Plan

_DOC_FIELDS = tuple(f.name for f in dataclasses.fields(IndexDoc))
_DERIVED_FIELDS = tuple(f.name for f in dataclasses.fields(Derived))
_SPLIT = len(_DOC_FIELDS)


@dataclass
class WirePlan:
    """A ``Plan`` without its documents, and the documents with their derived values as
    tuples (``[session, *new_docs, *upserts]``, the order ``PreparedDocs`` holds them in)."""

    plan: Plan
    rows: list[tuple[Any, ...]]
    new_docs: int


def pack(plan: Plan) -> WirePlan:
    """The plan in the shape the worker sends (its derived values computed here)."""
    docs = list(plan.prepared)
    out = plan.output
    if docs != [out.session, *out.new_docs, *out.upserts]:
        raise ValueError("a plan's documents are not in pass order")
    rows = []
    for doc in docs:
        derived = plan.prepared.derive(doc)
        rows.append(
            tuple(getattr(doc, name) for name in _DOC_FIELDS)
            + tuple(getattr(derived, name) for name in _DERIVED_FIELDS)
        )
    bare = replace(
        plan,
        output=replace(plan.output, new_docs=[], upserts=[]),
        prepared=PreparedDocs([], {}),
    )
    return WirePlan(plan=bare, rows=rows, new_docs=len(plan.output.new_docs))


def unpack(wire: WirePlan) -> Plan:
    """The plan as ``plan_pass`` made it: the same documents and derived values."""
    derived: dict[int, tuple[IndexDoc, Derived]] = {}
    docs: list[IndexDoc] = []
    new = object.__new__
    for row in wire.rows:
        # Frozen dataclasses without ``__init__``: their fields are plain instance attributes,
        # so filling ``__dict__`` builds the same object (a test compares them field by field).
        doc = new(IndexDoc)
        doc.__dict__.update(zip(_DOC_FIELDS, row, strict=False))
        values = new(Derived)
        values.__dict__.update(zip(_DERIVED_FIELDS, row[_SPLIT:], strict=True))
        derived[id(doc)] = (doc, values)
        docs.append(doc)
    output = replace(
        wire.plan.output,
        session=docs[0],
        new_docs=docs[1 : 1 + wire.new_docs],
        upserts=docs[1 + wire.new_docs :],
    )
    return replace(wire.plan, output=output, prepared=PreparedDocs(docs, derived))
