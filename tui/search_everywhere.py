"""`ade search` over every project ade knows: outside a project, and with ``--all`` inside one.

The daemon answers it when one runs (``allProjects`` on ``search.query``); otherwise each known
project that has an index is opened in this process, caught up and asked in turn
(``engine.machine.everywhere``). Printing is ``tui.search_run``'s: the project is on every row.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import msgspec

from engine.client import SearchClient
from engine.errors import ProjectError, UsageError
from engine.types import SearchQueryArgs, SearchQueryResult


def search_everywhere(ns: argparse.Namespace, args: SearchQueryArgs) -> int:
    """Answer ``args`` over every known project and print it; returns the exit code."""
    if ns.explain:
        raise UsageError("--explain reads one project's index: pass --project DIR")
    from tui.search_run import print_result

    args = msgspec.structs.replace(args, all_projects=True)
    result = None if ns.no_daemon else _from_daemon(ns, args)
    if result is not None:
        return print_result(ns, args, result)
    code = print_result(ns, args, _in_process(args, _here(ns)))
    if not ns.no_daemon:  # no daemon answered (and none was refused): start one for the next
        from tui.search_run import start_daemon_for_next_search

        start_daemon_for_next_search()
    return code


def _from_daemon(ns: argparse.Namespace, args: SearchQueryArgs) -> SearchQueryResult | None:
    from engine.errors import AdeError
    from engine.rpc.client import UntrustedDaemon, connect_daemon
    from tui.printable import printable

    try:
        client = connect_daemon(project_root=_here(ns) or Path.cwd(), restart=False)
    except UntrustedDaemon as err:
        from tui.daemon_search import warn_untrusted

        warn_untrusted(err)
        ns.no_daemon = True
        return None
    except (ProjectError, OSError):
        return None
    if client is None:
        return None
    try:
        return client.query(args)
    except (UsageError, ProjectError):
        raise
    except AdeError as err:
        if type(err).__name__ != "ContextNotServed":
            print(f"warning: the ade daemon failed ({printable(str(err))}); searching in this"
                  " process", file=sys.stderr)  # fmt: skip
        return None
    finally:
        client.close()


def _here(ns: argparse.Namespace) -> Path | None:
    """The project asked from (``--project`` or the working folder's), searched too."""
    from engine.project.locate import open_project

    try:
        return open_project(Path(ns.project) if ns.project else None).root
    except ProjectError:
        return None


def _in_process(args: SearchQueryArgs, here: Path | None) -> SearchQueryResult:
    from engine.embedded import EmbeddedClient
    from engine.machine.everywhere import query_everywhere
    from engine.project.lane_memo import one_listing
    from engine.rpc.registry import load_registry, registry_path
    from tui import collector
    from tui.search_run import CLI_HISTORY_SECONDS

    opened: list[EmbeddedClient] = []

    def client_for(root: Path) -> SearchClient:
        client = EmbeddedClient.open(root, start_worker=False)
        opened.append(client)
        collector.release()
        client.service.catch_up(history_seconds=CLI_HISTORY_SECONDS)
        return client

    registered, warnings = load_registry(registry_path())
    try:
        with one_listing():
            return query_everywhere(args, client_for, environ=os.environ,
                                    registered=[p.root for p in registered],
                                    registry_warnings=warnings, current=here)  # fmt: skip
    finally:
        for client in opened:
            client.close()


def link_project_root(project: str | None, link_text: str) -> Path | None:
    """``--project`` as given; without one, a link naming another project than the working
    folder's is opened in that project when ade knows it (a hit found from anywhere)."""
    if project is not None:
        return Path(project)
    from engine.errors import AdeError
    from engine.links.deeplink import parse_deep_link
    from engine.project.locate import open_project

    try:
        wanted = parse_deep_link(link_text.strip()).project_id
        if wanted is None or open_project(None).id == wanted:
            return None
    except AdeError:
        return None  # the command itself says what is wrong
    from engine.machine.known import root_of_project_id
    from engine.rpc.registry import load_registry, registry_path

    registered, _ = load_registry(registry_path())
    return root_of_project_id(wanted, os.environ, [p.root for p in registered])
