"""`ade import FILE…`: turn existing terminal recordings into searchable terminal sessions.

asciicast v1/v2/v3 (asciinema), util-linux ``script`` typescripts (``--timing`` optional) and tmux
``pipe-pane`` logs, each maybe gzip-compressed; the format is detected unless ``--format`` says,
and a file that is no recording (a timing file, binary data, a garbage ``.cast``) is refused.
Each file becomes ``.ade/terminals/<id>.log`` + ``.ade/sessions/<id>.json``; re-importing a file
is a no-op. A title and lane come from ``--title``/``--lane``, else a ``<file>.meta.json``
sidecar. ``--remove ID`` deletes an import. Prints one line per file (the session id and its
deep link). Bad input: one line, exit 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.errors import UsageError
from engine.importers.lane_choice import choose_lane
from engine.importers.recording import RecordingError
from engine.importers.removal import remove_import
from engine.importers.sidecar import read_sidecar
from engine.importers.terminal_import import FORMATS, load_recording, write_import
from engine.links.deeplink import build_link
from engine.project.git_exclude import note_excluded
from engine.project.locate import open_project
from tui.printable import printable

EXAMPLES = """\
examples:
  asciinema rec demo.cast && ade import demo.cast
  script --timing=run.tm run.log && ade import run.log --timing run.tm
  tmux pipe-pane -o 'cat >> ~/pane.log'  …  ade import ~/pane.log --lane feature-x
  ade import build.log.gz --title "nightly build"
  ade import --remove import-3f9a1c0b2d4e
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EXAMPLES
    parser.add_argument("files", nargs="*", type=Path, metavar="FILE", help="recordings to import")
    parser.add_argument("--format", choices=FORMATS, help="skip detection and read as this format")
    parser.add_argument("--timing", type=Path, metavar="FILE", help="script's timing file")
    parser.add_argument("--lane", metavar="LANE", help="lane id or name (default: the cwd's lane)")
    parser.add_argument("--title", metavar="TITLE", help="session title (default: the file's)")
    parser.add_argument(
        "--ended",
        action="store_true",
        help="mark the session ended even if the file stops mid-line (its last line is indexed)",
    )
    parser.add_argument(
        "--remove", action="append", metavar="ID", help="delete an imported session (repeatable)"
    )
    parser.add_argument("--project", metavar="DIR", help="project folder (default: git top level)")


def run(args: argparse.Namespace) -> int:
    if args.remove:
        if args.files:
            raise UsageError("--remove takes session ids, not files")
        return _remove(args)
    if not args.files:
        raise UsageError("give one or more recordings to import (or --remove ID)")
    if args.timing is not None and len(args.files) != 1:
        raise UsageError("--timing goes with exactly one typescript")
    if args.title is not None and (len(args.files) != 1 or not args.title.strip()):
        raise UsageError("--title goes with exactly one recording and must not be empty")
    project = open_project(Path(args.project) if args.project else None)
    try:
        # Parse every file (and its sidecar) before writing any: one bad file leaves the
        # project untouched.
        loaded = [load_recording(p, fmt=args.format, timing_path=args.timing) for p in args.files]
        sidecars = [read_sidecar(p) for p in args.files]
    except RecordingError as err:
        raise UsageError(str(err)) from None
    lanes = [choose_lane(project, args.lane or s.lane, Path.cwd()) for s in sidecars]
    for item, sidecar, lane_id in zip(loaded, sidecars, lanes, strict=True):
        title = args.title.strip() if args.title else sidecar.title
        result = write_import(project, item, lane_id, title=title, ended=args.ended)
        for warning in result.warnings:
            print(printable(f"ade import: {item.path.name}: {warning}"), file=sys.stderr)
        if item.torn and not args.ended:
            print(
                f"ade import: {printable(item.path.name)}: ends mid-line; its last line is indexed once it"
                " is complete (import it again) or with --ended",
                file=sys.stderr,
            )
        state = "imported" if result.written else "already imported"
        link = build_link("terminal", result.session_id, project_id=project.id, offset=0)
        print(f"{result.session_id}\t{result.format}\t{state}\t{link}")
    excluded = note_excluded(project, "ade import")
    if excluded is not None:
        print(excluded, file=sys.stderr)
    return 0


def _remove(args: argparse.Namespace) -> int:
    project = open_project(Path(args.project) if args.project else None)
    for sid in args.remove:  # every id checked before anything is deleted
        remove_import(project, sid, check_only=True)
    for sid in args.remove:
        remove_import(project, sid)
        print(f"{sid}\tremoved")
    return 0
