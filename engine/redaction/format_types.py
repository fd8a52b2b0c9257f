"""The shape of a generated secret format (``engine.redaction.formats``), kept apart so the
generated module holds data only."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import msgspec


class Allow(msgspec.Struct, frozen=True):
    """A gitleaks allowlist: a finding is dropped when one regex matches its ``target`` (the
    secret, the whole match or the line) or the secret contains one of the stopwords."""

    target: str
    regexes: tuple[str, ...]
    stopwords: tuple[str, ...]


class Format(msgspec.Struct, frozen=True):
    """One gitleaks rule: its regex runs only when a keyword occurs in the lowercased text; the
    secret is the ``secret_group`` (or the first non-empty group, or the whole match), and must
    have a Shannon entropy above ``entropy`` (0: no floor)."""

    rule_id: str
    regex: str
    keywords: tuple[str, ...]
    entropy: float
    secret_group: int
    allows: tuple[Allow, ...]
