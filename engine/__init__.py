"""ade-search engine: the headless core (index, ingestion, query, sources, deep links).

Nothing below this package imports textual, rich or tui; a test enforces it.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

RELEASE = "0.1.0"
"""The package's version (pyproject's ``[project] version``) as a constant: what a ``search.cli``
client and the daemon compare (``engine.search_cli``) — ``__version__``'s metadata lookup costs a
client ~25 ms. A test holds the two equal."""


def __getattr__(name: str) -> str:
    # ``__version__`` is looked up lazily: importlib.metadata (and the email package it pulls in)
    # costs ~25 ms, a sizeable share of `ade search` start-up, and only --version needs it.
    if name != "__version__":
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ade-search")
    except PackageNotFoundError:  # running from a checkout that was never installed
        return "0.0.0+checkout"
