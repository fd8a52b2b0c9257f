"""A transcript pass's plan as the planning worker ships it: documents as plain tuples.

Pickling a plan's ``IndexDoc`` and derived-value objects one by one (a class reference and a state
each) cost the writing process ~0.5 s of unpickling per 60 MB corpus; one tuple of fields per
document loads faster, and the records are rebuilt with their own (C) ``msgspec.Struct``
constructors (benchmarks/journal/waves-1-to-3.md, "Planning and overlap"). The writer is the critical path of a
first index, so what it spends receiving a plan is spent on the wall clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from msgspec.structs import replace

from engine.index.documents import IndexDoc, PreparedDocs
from engine.index.documents import _Derived as Derived
from engine.ingest.tailing import Plan

_DOC_FIELDS: tuple[str, ...] = IndexDoc.__struct_fields__
_DERIVED_FIELDS: tuple[str, ...] = Derived.__struct_fields__
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
    for row in wire.rows:
        doc = IndexDoc(*row[:_SPLIT])
        values = Derived(*row[_SPLIT:])
        derived[id(doc)] = (doc, values)
        docs.append(doc)
    output = replace(
        wire.plan.output,
        session=docs[0],
        new_docs=docs[1 : 1 + wire.new_docs],
        upserts=docs[1 + wire.new_docs :],
    )
    return replace(wire.plan, output=output, prepared=PreparedDocs(docs, derived))
