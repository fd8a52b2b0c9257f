"""The title normalization shared by the index (its ``title_norm`` column) and the ranking tiers.

It lives with the index, below the query language, so ``engine.query`` imports the index and
never the other way round.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import unicodedata


def normalize_title_query(text: str) -> str:
    """NFKC, casefold, whitespace collapsed to single spaces and trimmed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())
