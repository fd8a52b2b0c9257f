"""What an agent's reader skips, counted per agent and per reason (docs/agents.md, "Nothing
silent").

Every line, record, row or file a reader leaves out is counted in the ``WarningTally`` it was
given, with one of the reasons below, so that ``ade search --status`` can say, for each agent,
how many were skipped and why. Readers call ``skip`` for a record of a transcript (under the
source key they were handed, ``chat:<sid>``) and ``skip_file`` for a file met while listing
sessions (under the agent's name, once per file however often the folder is listed).
``by_agent`` folds every source key back to its agent for the status.

Plain functions over the tally: importing this module imports no parser.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal, get_args

from engine.agent_table import AGENT_NAMES
from engine.project.tally import WarningTally

Reason = Literal[
    "bad json",
    "unknown type",
    "no id",
    "no cwd",
    "no message",
    "not a session",
    "unreadable",
    "too long",
    "refused",
    "truncated",
]
"""Why something was skipped:

- ``bad json``: a line or row that does not decode, or is not a JSON object;
- ``unknown type``: a record whose type (or role) the agent does not write, or none;
- ``no id``: a record without the id it needs (and none can be derived from its place);
- ``no cwd``: a session whose store names no working folder, so no project can be told;
- ``no message``: a message record without its message, parts or text;
- ``not a session``: a file in the agent's folder that is no session of it;
- ``unreadable``: a file or database that cannot be read now;
- ``too long``: a file longer than the reader reads (the rest not read);
- ``refused``: a file linked out of the agent's folders, or no regular file;
- ``truncated``: a message indexed cut at the read cap (kept, but not whole).

A new reason is a new word here (and a line above): ``--status`` lists what it finds."""

REASONS: tuple[str, ...] = get_args(Reason)
"""Every reason, in the order ``--status`` lists them."""


def skip(tally: WarningTally, source: str, reason: Reason, n: int = 1) -> None:
    """Count ``n`` records of ``source`` skipped for ``reason``.

    ``source``: the key the reader was handed (``chat:<agent>-<id>``, a subagent's
    ``chat:<sid>/<file>``), or the agent's name for what is met while listing sessions."""
    tally.add(source, reason, n)


def skip_file(tally: WarningTally, agent: str, reason: Reason, path: Path | str) -> None:
    """Count the file ``path`` of ``agent``'s folders skipped for ``reason``, once however
    often the folder is listed (a daemon lists on every reconcile)."""
    tally.add_once(agent, reason, str(path))


def agent_of(source: str) -> str | None:
    """The agent a tally's source key counts for: ``claude``, ``gemini:<file>`` and
    ``chat:claude-<id>`` (a subagent's ``chat:claude-<id>/<file>``) are Claude Code's and
    Gemini's; None for a key of no agent (``sessions``, a ``.ade`` chat)."""
    name = source.removeprefix("chat:")
    chat = name != source
    for agent in sorted(AGENT_NAMES, key=len, reverse=True):  # a longer name first
        if chat and name.startswith(f"{agent}-"):
            return agent
        if not chat and (name == agent or name.startswith(f"{agent}:")):
            return agent
    return None


def by_agent(reasons: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int]]:
    """Counts per reason of every source key folded into its agent's (keys of no agent left
    out): ``{agent: {reason: n}}`` for the agents that skipped anything."""
    out: dict[str, dict[str, int]] = {}
    for source, counts in reasons.items():
        agent = agent_of(source)
        if agent is None:
            continue
        mine = out.setdefault(agent, {})
        for reason, n in counts.items():
            if n > 0:
                mine[reason] = mine.get(reason, 0) + n
    return {agent: counts for agent, counts in out.items() if counts}


def tally_reasons(tally: WarningTally) -> dict[str, dict[str, int]]:
    """``{source: {reason: n}}`` of ``tally`` (a source's count past its remembered reasons
    under ``other reasons``)."""
    out: dict[str, dict[str, int]] = {}
    for source, count in tally.snapshot().items():
        reasons = tally.reasons(source)
        rest = count - sum(reasons.values())
        out[source] = {**reasons, **({"other reasons": rest} if rest > 0 else {})}
    return out
