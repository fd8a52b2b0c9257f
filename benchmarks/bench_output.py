"""What the output boundary (``tui.printable``) costs `ade search`'s printing, against ``--base``.

Times, in the same interleaved rounds, the text and the JSON of one page of ``--limit`` hits as
``tui.search_format`` prints them now and as the version at ``--base`` (loaded from git) did, on
ordinary text (the common case: one regex scan per field finds nothing) and on hostile text
(every field full of escapes and controls), and the daemon path's ``printable_json`` over the
daemon's answer line against printing it as it came. Medians of ``--runs`` rounds; the ratios are
what to read.

Run: ``python -m benchmarks.bench_output [--limit 500] [--base main] [--runs 41]``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import types
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.timing import interleaved, ratios
from engine.types import MatchRange, SearchQueryResult, SearchResultItem, to_json
from tui import search_format
from tui.printable import printable_json

NOW = datetime(2026, 6, 15, 12, tzinfo=UTC)

HOSTILE = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\x9b2J\u202eevil\x7f"


def _module_at(rev: str, path: str) -> types.ModuleType:
    source = subprocess.run(["git", "show", f"{rev}:{path}"], check=True, capture_output=True,
                            text=True).stdout  # fmt: skip
    module = types.ModuleType(f"base_{Path(path).stem}")
    sys.modules[module.__name__] = module
    exec(compile(source, f"{rev}:{path}", "exec"), module.__dict__)
    return module


def page(limit: int, extra: str) -> SearchQueryResult:
    """``limit`` hits shaped like a real page: a title, a ~200-character snippet with two
    matches, a lane, a tool and a deep link; ``extra`` is planted in every text field."""
    items = []
    for n in range(limit):
        snippet = (
            f"… raised ReadTimeoutError{extra} after 3 retries; backoff doubled to 8 s and the "
            f"gateway answered 504 on attempt {n} — see the retry policy in payments/gateway.py …"
        )
        items.append(SearchResultItem(
            doc_id=f"chat:chat-{n}@{n}", kind="chat", title=f"Retry the gateway {n}{extra}",
            snippet=snippet, match_ranges=(MatchRange(9, 25), MatchRange(60, 67)),
            tier="body", updated_at=1_781_000_000_000 - n * 60_000,
            deep_link=f"ade://chat/chat-{n}?event={n}&project=acme", lane_name=f"lane{extra}",
            tool="claude",
        ))  # fmt: skip
    return SearchQueryResult(items=tuple(items), next_cursor=None, total=limit)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=500)
    parser.add_argument("--base", default="main")
    parser.add_argument("--runs", type=int, default=41)
    args = parser.parse_args()
    base = _module_at(args.base, "tui/search_format.py")
    for name, extra in (("ordinary", ""), ("hostile", HOSTILE)):
        result = page(args.limit, extra)
        line = to_json(result).decode()
        jobs = {
            "text base": lambda r=result: base.format_results_text(r, NOW, color=False),
            "text now": lambda r=result: search_format.format_results_text(r, NOW, color=False),
            "json base": lambda r=result: base.format_results_json(r),
            "json now": lambda r=result: search_format.format_results_json(r),
            "daemon line as is": lambda s=line: s.encode(),
            "daemon line printable_json": lambda s=line: printable_json(s).encode(),
        }
        timings = interleaved(jobs, args.runs)
        print(f"{name} text, {args.limit} hits ({len(line):,} bytes of JSON):")
        for a, b in (("text now", "text base"), ("json now", "json base"),
                     ("daemon line printable_json", "daemon line as is")):  # fmt: skip
            ratio = ratios({a: timings[a], b: timings[b]}, b)[a]
            print(f"  {a:<28} {timings[a].median:7.3f} ms  vs {b:<18} "
                  f"{timings[b].median:7.3f} ms  ratio {ratio:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
