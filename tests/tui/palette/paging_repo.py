"""A small git.git look-alike for the paging tests (every hit reachable): 130 commits, 80 of them naming
``strbuf_addf``, and a ``strbuf.c`` that defines it — more hits of one kind than a first page,
and a definition that a list of the best 60 hits of every kind never reached."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

from engine.demo import DEMO_NOW
from tests.engine.ingest.history_repo import git

COMMITS = 130
NAMING = 80
"""Commits whose subject names ``strbuf_addf``."""

STRBUF_C = """\
#include "strbuf.h"

/* strbuf_addf appends formatted text */
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
\tva_list ap;
}
"""


def build_paging_repo(root: Path) -> Path:
    """Write the repository at ``root`` (work tree: ``strbuf.c`` and ``README``) and return it.
    Commit times are an hour apart, the newest an hour before the demo's clock."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    subjects = [f"strbuf: use strbuf_addf in caller {i}" for i in range(NAMING)]
    subjects += [f"refs: tidy packed refs {i}" for i in range(COMMITS - NAMING - 1)]
    subjects.append("add strbuf.c")
    newest = int(DEMO_NOW.timestamp()) - 3600
    stream: list[bytes] = []
    for i, subject in enumerate(subjects):
        data = f"{subject}\n".encode()
        at = newest - 3600 * (len(subjects) - 1 - i)
        stream.append(
            f"commit refs/heads/main\ncommitter Ada <ada@example.com> {at} +0000\n".encode()
        )
        stream.append(f"data {len(data)}\n".encode() + data + b"\n")
        if i == len(subjects) - 1:
            for name, text in (("strbuf.c", STRBUF_C), ("README", "a repository to page\n")):
                body = text.encode()
                stream.append(f"M 100644 inline {name}\ndata {len(body)}\n".encode() + body + b"\n")
        stream.append(b"\n")
    git(root, "fast-import", "--quiet", "--date-format=raw", stdin=b"".join(stream))
    git(root, "reset", "-q", "--hard", "main")
    stamp = (DEMO_NOW - timedelta(days=1)).timestamp()
    for name in ("strbuf.c", "README"):
        os.utime(root / name, (stamp, stamp))  # file hits are ordered by mtime
    return root
