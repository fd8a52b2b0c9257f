"""A separate ingesting process for the crash and convergence tests (run as a script).

Usage: ``python ingest_worker.py ROOT MODE`` where MODE is ``loop`` (catch up forever),
``rebuild`` (catch up, rebuilding every third round) or ``once``. Small slices (of transcripts and
of the commit history) make every pass short, so a ``kill -9`` lands mid-ingest often; the
planning worker (the first-index budget) plans ahead whenever more than one transcript is queued.
"""

from __future__ import annotations

import sys
from pathlib import Path

import engine.ingest.history as history
from engine.index.tuning import WriteTuning
from engine.project.locate import open_project
from engine.wiring import create_project_service

history.SLICE_COMMITS = 40
TUNING = WriteTuning(
    slice_bytes=8 * 1024,
    worker_min_backlog_bytes=0,  # the planning worker takes part whenever there is a backlog
    max_load_per_cpu=float("inf"),
)


def main() -> None:
    root, mode = Path(sys.argv[1]), sys.argv[2]
    service = create_project_service(open_project(root), start_worker=False, tuning=TUNING)
    print("ready", flush=True)
    rounds = 0
    while True:
        if mode == "rebuild" and rounds % 3 == 2:
            service.rebuild_index()
        else:
            service.catch_up()
        rounds += 1
        if mode == "once":
            break
    service.dispose()


if __name__ == "__main__":
    main()
