"""`ade import FILE…`: turn existing terminal recordings into searchable terminal sessions.

asciicast v1/v2/v3 (asciinema), util-linux ``script`` typescripts (``--timing`` optional) and tmux
``pipe-pane`` logs; the format is detected unless ``--format`` says. Each file becomes
``.ade/terminals/<id>.log`` + ``.ade/sessions/<id>.json``; re-importing a file is a no-op.
Prints one line per file (the session id and its deep link). Bad input: one line, exit 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.errors import UsageError
from engine.importers.lane_choice import choose_lane
from engine.importers.recording import RecordingError
from engine.importers.terminal_import import FORMATS, load_recording, write_import
from engine.links.deeplink import build_link
from engine.project.git_exclude import note_excluded
from engine.project.locate import open_project

EXAMPLES = """\
examples:
  asciinema rec demo.cast && ade import demo.cast
  script --timing=run.tm run.log && ade import run.log --timing run.tm
  tmux pipe-pane -o 'cat >> ~/pane.log'  …  ade import ~/pane.log --lane feature-x
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EXAMPLES
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE", help="recordings to import")
    parser.add_argument("--format", choices=FORMATS, help="skip detection and read as this format")
    parser.add_argument("--timing", type=Path, metavar="FILE", help="script's timing file")
    parser.add_argument("--lane", metavar="LANE", help="lane id or name (default: the cwd's lane)")
    parser.add_argument("--project", metavar="DIR", help="project folder (default: git top level)")


def run(args: argparse.Namespace) -> int:
    if args.timing is not None and len(args.files) != 1:
        raise UsageError("--timing goes with exactly one typescript")
    project = open_project(Path(args.project) if args.project else None)
    lane_id = choose_lane(project, args.lane, Path.cwd())
    try:
        # Parse every file before writing any: one bad file leaves the project untouched.
        loaded = [load_recording(p, fmt=args.format, timing_path=args.timing) for p in args.files]
    except RecordingError as err:
        raise UsageError(str(err)) from None
    for item in loaded:
        result = write_import(project, item, lane_id)
        for warning in result.warnings:
            print(f"ade import: {item.path.name}: {warning}", file=sys.stderr)
        state = "imported" if result.written else "already imported"
        link = build_link("terminal", result.session_id, project_id=project.id, offset=0)
        print(f"{result.session_id}\t{result.format}\t{state}\t{link}")
    excluded = note_excluded(project, "ade import")
    if excluded is not None:
        print(excluded, file=sys.stderr)
    return 0
