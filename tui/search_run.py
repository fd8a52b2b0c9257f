"""Running `ade search` once its arguments are valid: pick a client, catch up, query, print.

With a daemon running (and no ``--no-daemon``) the query goes over its socket; otherwise the
service runs in-process (the embedded default): the index is opened, every source whose file
changed since the last run is caught up (stat-only when nothing changed), then the query runs.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from engine.client import CATCH_UP_BOUND_S, SearchClient
from engine.errors import AdeError, ProjectError, UsageError
from engine.project.lane_memo import one_listing
from engine.types import (
    HitExplanation,
    SearchQueryArgs,
    SearchQueryResult,
    SearchResultItem,
    to_json,
)
from tui import collector
from tui.printable import printable, printable_json
from tui.progress import StderrProgress
from tui.search_format import (
    format_results_json,
    format_results_text,
    format_status_text,
    format_warnings,
)

if TYPE_CHECKING:
    import argparse

    from engine.project.model import Project


CLI_HISTORY_SECONDS = CATCH_UP_BOUND_S
"""Longest a command waits for a first commit-history pass (git.git's 82,000 commits take ~25 s):
it then answers, warning that older commits may be missing, and the next run (or a daemon, or a
palette) goes on from where this one stopped."""


def open_client(ns: argparse.Namespace, *, catch_up: bool = True) -> SearchClient:
    """The daemon's client when one serves this machine, else the embedded service, caught up
    (``catch_up=False`` for ``--rebuild``, which re-ingests everything anyway)."""
    from engine.project.locate import open_project

    root = Path(ns.project).expanduser() if ns.project else None
    project = open_project(root)
    ensure_project(project)
    if not ns.no_daemon:
        daemon = _daemon_client(project, ns)
        if daemon is not None:
            return daemon
    from engine.embedded import EmbeddedClient

    client = EmbeddedClient.open(project.root, start_worker=False, project=project)
    collector.release()  # the engine is imported: a catch-up's ingestion collects as usual
    if not catch_up:
        return client
    bar = StderrProgress("indexing")
    try:
        client.service.catch_up(progress=bar, history_seconds=CLI_HISTORY_SECONDS)
    finally:
        bar.finish()
    return client


def ensure_project(project: Project) -> None:
    """`ade search` in a folder that is no project says so (exit 2) instead of creating an
    ``.ade/cache`` there and indexing it (only a project is served)."""
    from engine.rpc.project_marker import is_project, is_registered, require_project

    if is_project(project.root, is_git=project.is_git):
        return
    from engine.rpc.registry import registry_path

    registered = is_registered(project.root, registry_path())
    require_project(project.root, is_git=False, registered=registered)


def _daemon_client(project: Project, ns: argparse.Namespace) -> SearchClient | None:
    from engine.rpc.client import UntrustedDaemon, connect_daemon

    # None fast when no daemon runs; a daemon lost mid-call is answered in process, not waited for
    try:
        return connect_daemon(project_root=project.root, restart=False)
    except UntrustedDaemon as err:
        from tui.daemon_search import warn_untrusted

        warn_untrusted(err)
        ns.no_daemon = True  # and start none beside it: the runtime folder is not ours
        return None


def run_search(ns: argparse.Namespace, args: SearchQueryArgs | None) -> int:
    """Answer ``ade search`` once its arguments are valid; returns the exit code.

    A daemon that fails a request for its own reasons (an internal error, a lost connection)
    must not fail the search: the same request is answered in-process instead, with a warning on
    stderr. Usage and project errors are the caller's and are never retried.
    """
    if ns.rebuild:
        from engine.rpc.roles import check_rebuild_allowed  # only a rebuild asks

        check_rebuild_allowed(os.environ)
    # One command, one lane listing: the catch-up and the query share one `git worktree list`.
    with one_listing():
        return _run_search(ns, args)


def _run_search(ns: argparse.Namespace, args: SearchQueryArgs | None) -> int:
    client = open_client(ns, catch_up=not ns.rebuild)
    # No daemon answered (and none was refused): this query starts one for the next.
    no_daemon_answered = _is_embedded(client) and not ns.no_daemon and args is not None
    code: int | None = None
    try:
        code = _answer(client, ns, args)
    except (UsageError, ProjectError):
        raise
    except AdeError as err:
        if ns.no_daemon or _is_embedded(client):
            raise
        if type(err).__name__ != "ContextNotServed":  # the caller's context: nothing failed
            print(f"warning: the ade daemon failed ({printable(str(err))}); searching in this"
                  " process", file=sys.stderr)  # fmt: skip
    finally:
        client.close()
    if code is not None:
        if no_daemon_answered:
            start_daemon_for_next_search()
        return code
    ns.no_daemon = True
    client = open_client(ns, catch_up=not ns.rebuild)
    try:
        return _answer(client, ns, args)
    finally:
        client.close()


def start_daemon_for_next_search() -> None:
    """Start the daemon in the background once the answer is out (``engine.rpc.autostart``):
    the output is flushed first, so a reader never waits for the spawn."""
    from engine.rpc.autostart import autostart_allowed, start_daemon_in_background
    from tui.daemon_search import SEARCH_RENDERER

    if not autostart_allowed():
        return
    sys.stdout.flush()
    sys.stderr.flush()
    start_daemon_in_background(renderer=SEARCH_RENDERER)


def _is_embedded(client: SearchClient) -> bool:
    """Whether ``client`` answers in this process. ``engine.embedded`` is loaded whenever such
    a client exists, so it is looked up, never imported (a daemon's answer does without it)."""
    embedded = sys.modules.get("engine.embedded")
    return embedded is not None and isinstance(client, embedded.EmbeddedClient)


def _answer(client: SearchClient, ns: argparse.Namespace, args: SearchQueryArgs | None) -> int:
    if ns.status:
        status = client.index_status()
        if ns.fmt == "json":
            print(printable_json(to_json(status).decode()))
        else:
            print(format_status_text(status))
        return 0
    if ns.rebuild:
        bar = StderrProgress("rebuilding")
        try:
            outcome = client.rebuild_index(progress=bar)
        finally:
            bar.finish()
        if ns.fmt == "json":
            print(printable_json(to_json(outcome).decode()))
        else:
            print(f"rebuilt: {outcome.doc_count:,} documents in {outcome.duration_ms:,} ms")
        return 0 if outcome.ok else 1
    assert args is not None
    return _query(client, ns, args)


def _query(client: SearchClient, ns: argparse.Namespace, args: SearchQueryArgs) -> int:
    """Run the query and print it; 0 with results, 1 with none."""
    return print_result(ns, args, client.query(args), client=client)


def print_result(
    ns: argparse.Namespace,
    args: SearchQueryArgs,
    result: SearchQueryResult,
    *,
    client: SearchClient | None = None,
) -> int:
    """Print one answer (warnings on stderr, the page on stdout); 0 with results, 1 with none.
    ``client`` answers ``--explain``."""
    from engine.basics.clock import clock_from_env

    now = clock_from_env()()
    for line in format_warnings(result):
        print(line, file=sys.stderr)
    explain = _explain(client, args, result.items, now) if ns.explain and client else None
    if ns.fmt == "json":
        print(format_results_json(result, explain))
    else:
        color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
        from engine.query.cursor import cursor_seen

        first = cursor_seen(args.cursor) + args.offset + 1
        print(format_results_text(result, now, color=color, explain=explain, first=first))
    return 0 if result.items else 1


def _explain(
    client: SearchClient,
    args: SearchQueryArgs,
    items: Sequence[SearchResultItem],
    now: datetime,
) -> list[HitExplanation]:
    """Explanations asked of the client (it reads the index; the front end never opens it)."""
    return client.explain(args, items, now=now)
