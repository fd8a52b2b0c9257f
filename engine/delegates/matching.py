"""How delegated sources mark a matching record's text for its snippet.

Whether a record matches is the plan's decision (``QueryPlan.matches``: the index's reading of
the query, in memory). Marks are placed the way indexed snippets place them
(``engine.query.snippets``: whole tokens, prefixes, camelCase parts, diacritics folded), with the
same ``\\x01``/``\\x02`` markers, so one extractor serves both and a hit highlights the same words
whichever source found it.
"""

from __future__ import annotations

from engine.query.plan import QueryPlan
from engine.query.snippets import make_snippet


def mark_matches(plan: QueryPlan, text: str) -> str:
    """``text`` (whitespace collapsed, never cut) with the plan's positive terms marked."""
    return make_snippet(text, plan.parsed, width=len(text) + 1)
