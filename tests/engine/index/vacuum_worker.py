"""A process giving an index's free pages back, stopped inside a step (run as a script).

Usage: ``python vacuum_worker.py INDEX STEPS``: runs ``vacuum_steps`` with small steps; once
``STEPS`` steps have committed it prints ``inside`` from the middle of the next one (a progress
handler, pages already moved in that uncommitted transaction) and waits there for the parent's
``kill -9``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import engine.index.vacuum as vacuum
from engine.index.db import connect

STEP_PAGES = 8


def main() -> None:
    path, committed = Path(sys.argv[1]), int(sys.argv[2])
    conn = connect(path)
    calls = [0]

    def stop_inside() -> bool:
        calls[0] += conn.in_transaction
        if calls[0] == 24:  # past BEGIN and the free-list count: a few pages into the step
            print("inside", flush=True)
            sys.stdin.readline()  # blocks until killed
        return False

    for done, _ in enumerate(vacuum.vacuum_steps(conn, STEP_PAGES), start=1):
        print(f"step {done}", flush=True)
        if done == committed:
            conn.set_progress_handler(stop_inside, 1)
    print("finished", flush=True)


if __name__ == "__main__":
    main()
