"""Command-line options of ``ade daemon run`` (shared by ``tui.commands.daemon`` and ``-m``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.errors import AdeError
from engine.rpc.autostart import AUTO_IDLE_EXIT_S, serve_auto_started
from engine.rpc.daemon import DaemonOptions, configure_logging, run_daemon
from engine.rpc.limits import ServerLimits
from engine.rpc.services import BACKFILL_DELAY_S


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ade daemon run``."""
    defaults = ServerLimits()
    parser.add_argument("--socket", type=Path, help="socket path (default: the runtime folder)")
    parser.add_argument("--log-file", type=Path, help="also write the log to this file")
    parser.add_argument(
        "--backfill-delay",
        type=float,
        default=BACKFILL_DELAY_S,
        metavar="SECONDS",
        help=f"wait before backfilling a newly opened project (default {BACKFILL_DELAY_S:g})",
    )
    parser.add_argument(
        "--frame-deadline",
        type=float,
        default=defaults.frame_deadline,
        metavar="SECONDS",
        help="cut off a client that starts a request and stalls (default %(default)g)",
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=defaults.idle_timeout,
        metavar="SECONDS",
        help="close a connection idle this long (default %(default)g)",
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        default=defaults.max_connections,
        help="concurrent connections (default %(default)d)",
    )
    parser.add_argument(
        "--idle-per-uid",
        type=int,
        default=defaults.idle_per_uid,
        help="idle connections one user may keep open; the oldest beyond it are closed"
        " (default %(default)d)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=defaults.workers,
        help="engine calls (queries) run at once; more wait their turn (default %(default)d)",
    )
    parser.add_argument(
        "--idle-grace",
        type=float,
        default=defaults.idle_grace,
        metavar="SECONDS",
        help="idle this long before a connection counts against --idle-per-uid"
        " (default %(default)g)",
    )
    parser.add_argument(
        "--idle-exit",
        type=float,
        default=None,
        metavar="SECONDS",
        help="exit after this long without a request (default: never; a daemon `ade search`"
        f" started itself: {AUTO_IDLE_EXIT_S:g})",
    )
    parser.add_argument(
        "--renderer",
        metavar="MODULE",
        help="the module whose answer_cli renders whole `ade search` answers (search.cli);"
        " without one the daemon answers only queries",
    )
    # How `ade search` starts its daemon (engine.rpc.autostart), not for users.
    parser.add_argument("--auto-started", action="store_true", help=argparse.SUPPRESS)
    # A tuning knob for benchmarks/bench_daemon_load.py (0: queries never wait), not for users.
    parser.add_argument("--query-hold", type=float, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--verbose", action="store_true", help="log at debug level")


def options_from_args(args: argparse.Namespace) -> DaemonOptions:
    """Turn parsed options into ``DaemonOptions``."""
    limits = ServerLimits(
        frame_deadline=args.frame_deadline,
        idle_timeout=args.idle_timeout,
        max_connections=args.max_connections,
        idle_per_uid=args.idle_per_uid,
        idle_grace=args.idle_grace,
        workers=max(1, args.workers),
        query_hold=args.query_hold,
        idle_exit=idle_exit_from_args(args),
    )
    return DaemonOptions(
        socket=args.socket,
        log_file=args.log_file,
        backfill_delay=args.backfill_delay,
        limits=limits,
        verbose=args.verbose,
        auto_started=args.auto_started,
        renderer=args.renderer,
    )


def idle_exit_from_args(args: argparse.Namespace) -> float | None:
    """``--idle-exit`` as given; an auto-started daemon's default is ``AUTO_IDLE_EXIT_S``."""
    if args.idle_exit is not None:
        if args.idle_exit <= 0:
            raise AdeError(f"--idle-exit must be above 0 seconds (got {args.idle_exit:g})")
        return float(args.idle_exit)
    return AUTO_IDLE_EXIT_S if args.auto_started else None


def serve_from_args(args: argparse.Namespace) -> int:
    """Configure logging and run the daemon in the foreground."""
    options = options_from_args(args)
    if options.auto_started:
        return serve_auto_started(options)
    configure_logging(options)
    return run_daemon(options)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m engine.rpc [OPTIONS]``."""
    parser = argparse.ArgumentParser(prog="python -m engine.rpc", description="run the ade daemon")
    add_run_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return serve_from_args(args)
    except AdeError as err:
        print(f"ade daemon: {err}", file=sys.stderr)
        return 2
