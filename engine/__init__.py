"""ade-search engine: the headless core (index, ingestion, query, sources, deep links).

Nothing below this package imports textual, rich or tui; a test enforces it.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ade-search")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0.0.0+checkout"
