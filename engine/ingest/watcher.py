"""The file watcher (watchfiles): an input like any other (DESIGN §4). Not started yet: the
service degrades to the periodic stat reconcile and says so in its status."""

from __future__ import annotations

from engine.service import SearchService


def start_watcher(service: SearchService) -> None:
    """Start watching ``.ade/`` and the lanes' git refs for ``service`` (degrades on failure)."""
    service.watcher_state = "degraded: watcher not available, polling by reconcile"
