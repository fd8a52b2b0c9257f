"""What a delegate is: a function of a :class:`DelegateContext` (the query's plan and the
project's lanes) giving candidates and warnings. Its own module so the delegates (``file_hits``,
``browse``) and the table that runs them (``gather``) import it without importing each other."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import msgspec

from engine.project.model import Lane, Project
from engine.query.plan import QueryPlan
from engine.query.ranking import Candidate


class DelegateContext(msgspec.Struct, frozen=True):
    """What every delegate gets: the query's plan and the project's lanes."""

    project: Project
    plan: QueryPlan
    lanes: Sequence[Lane]
    environ: Mapping[str, str]


Delegate = Callable[[DelegateContext], tuple[list[Candidate], list[str]]]
"""A delegate: its candidates and its warnings."""
