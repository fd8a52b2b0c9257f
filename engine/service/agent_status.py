"""``--status`` for every registered agent (docs/agents.md): where it was searched in the
caller's environment, how many sessions it keeps there, how many are this project's, and what
its readers skipped, per reason (``engine.external.skips``).

Every agent of ``engine.agent_table`` gets a line, those with no folder and no session too: an
agent that finds nothing says so instead of staying silent. The sessions are listed afresh (the
head cache makes that a stat per file), so a status in a new process, whose catch-up matched
the warm-run manifest and listed nothing, still counts the files a listing skips.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from engine.index.db import SourceRow
from engine.project.model import Project
from engine.project.tally import WarningTally
from engine.types import AgentStatus


def agent_statuses(
    project: Project, tally: WarningTally, sources: list[SourceRow]
) -> tuple[AgentStatus, ...]:
    """One ``AgentStatus`` per registered agent of ``project``, in the table's order: ``tally``
    is this process's counts, ``sources`` the index's source rows (their stored counts)."""
    # Deferred: only a status reads the agents' formats (the start-up budget).
    from engine.basics.caller_env import current_environ
    from engine.external.catalog import discovery_roots_of
    from engine.external.discover import external_sessions, project_lane
    from engine.external.heads import HEADS_FILE, HeadCache
    from engine.external.memory import load_memory, still_there
    from engine.external.registry import all_formats
    from engine.external.skips import REASONS, by_agent, tally_reasons
    from engine.ingest.tailing import persisted_skip_reasons
    from engine.project.lanes import list_lanes

    env = current_environ()  # a daemon: the caller's folders
    listing = WarningTally()
    lanes = list_lanes(project, WarningTally()) or [project_lane(project)]
    heads = HeadCache(project.cache_dir / HEADS_FILE)  # read, never written here
    found = external_sessions(project, lanes, listing, env, heads)
    kept = still_there(load_memory(project), {m.id for m in found}, discovery_roots_of(env))
    tied = Counter(m.source for m in (*found, *(e.meta for e in kept)))
    skipped = by_agent(_most(
        tally_reasons(tally), persisted_skip_reasons(sources), tally_reasons(listing)
    ))  # fmt: skip
    order = {reason: i for i, reason in enumerate(REASONS)}
    out: list[AgentStatus] = []
    for fmt in all_formats():
        why = skipped.get(fmt.name, {})
        out.append(AgentStatus(
            name=fmt.name, label=fmt.label,
            folders=tuple(str(path) for path in fmt.searched(env, lanes)),
            found=fmt.count_sessions(env, lanes), tied=tied.get(fmt.name, 0),
            skipped=dict(sorted(why.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0]))),
        ))  # fmt: skip
    return tuple(out)


def _most(*counts: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int]]:
    """Per source and reason, the largest of ``counts``: this process's tally, the counts
    stored with the cursors and a fresh listing's overlap (a line counted by this run's pass is
    in the stored count too), so the same skip is never counted twice."""
    out: dict[str, dict[str, int]] = {}
    for each in counts:
        for source, reasons in each.items():
            mine = out.setdefault(source, {})
            for reason, n in reasons.items():
                mine[reason] = max(mine.get(reason, 0), n)
    return out
