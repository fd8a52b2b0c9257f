"""What an agent's reader skips is counted per agent and per reason: a file met again at every
listing is one count, every source key folds back to its agent, and the counts per reason stored
with a cursor are read back by a later run."""

from __future__ import annotations

from engine.external.skips import REASONS, agent_of, by_agent, skip, skip_file, tally_reasons
from engine.index.db import SourceRow
from engine.ingest.tailing import carried_skips, persisted_skip_reasons, state_json
from engine.project.tally import MAX_REASONS_PER_SOURCE, WarningTally


def test_a_file_is_counted_once_however_often_it_is_listed() -> None:
    tally = WarningTally()
    for _ in range(3):  # three listings
        skip_file(tally, "codex", "no cwd", "/h/.codex/sessions/a.jsonl")
        skip_file(tally, "codex", "no cwd", "/h/.codex/sessions/b.jsonl")
    assert tally.reasons("codex") == {"no cwd": 2}
    merged = WarningTally()
    merged.merge(tally)
    merged.merge(tally)  # a listing merged twice into the service's tally: still two files
    assert merged.reasons("codex") == {"no cwd": 2}
    skip(merged, "codex", "no cwd")  # a plain count beside them adds
    assert merged.reasons("codex") == {"no cwd": 3}


def test_every_source_key_folds_back_to_its_agent() -> None:
    assert agent_of("claude") == "claude"
    assert agent_of("gemini:session-1.json") == "gemini"
    assert agent_of("chat:codex-019a") == "codex"
    assert agent_of("chat:claude-abc/agent-1") == "claude"
    assert agent_of("chat:pi-2026") == "pi"
    assert agent_of("chat:openclaw-x") == "openclaw"
    assert agent_of("chat:my-own-session") is None  # an .ade chat
    assert agent_of("sessions") is None
    tally = WarningTally()
    skip(tally, "chat:codex-1", "bad json", 2)
    skip(tally, "chat:codex-2", "unknown type")
    skip_file(tally, "codex", "no cwd", "x.jsonl")
    skip(tally, "chat:ade-own", "bad json")
    assert by_agent(tally_reasons(tally)) == {
        "codex": {"bad json": 2, "unknown type": 1, "no cwd": 1}
    }


def test_reasons_stored_with_the_cursor_are_read_back_and_added_to() -> None:
    first = WarningTally()
    skip(first, "chat:qwen-1", "bad json", 2)
    state = carried_skips({}, first.total(), first.by_reason())
    assert state == {"skipped": 2, "skip_reasons": {"bad json": 2}}
    more = WarningTally()
    skip(more, "chat:qwen-1", "unknown type")
    state = carried_skips(state, more.total(), more.by_reason())
    rows = [
        SourceRow(key="chat:qwen-1", state=state_json(state)),
        SourceRow(key="chat:old", state=state_json({"skipped": 4})),  # stored by an older release
    ]
    assert persisted_skip_reasons(rows) == {
        "chat:qwen-1": {"bad json": 2, "unknown type": 1},
        "chat:old": {"other reasons": 4},
    }


def test_stored_reasons_are_bounded() -> None:
    many = {f"reason {i}": 1 for i in range(MAX_REASONS_PER_SOURCE + 3)}
    state = carried_skips({}, len(many), many)
    assert len(state["skip_reasons"]) == MAX_REASONS_PER_SOURCE + 1
    assert state["skip_reasons"]["other reasons"] == 3
    assert {"no id", "bad json"} <= set(REASONS)
