"""A Claude Code message streamed as several lines of one ``message.id``
(``tests/fixtures/agents/claude/streaming.jsonl``, its README names the sources) is one message
with its final text and its tool call once, whether read whole or followed live."""

from __future__ import annotations

from engine.external.registry import agent_format
from engine.project.model import ChatEvent
from engine.project.tally import WarningTally
from tests.engine.external.agent_homes import FIXTURES

DATA = (FIXTURES / "claude" / "streaming.jsonl").read_bytes()
FINAL = "Let me check the otter config."


def _said(events: list[ChatEvent]) -> list[tuple[str, object]]:
    return [
        (e.type, e.data.get("text") or e.data.get("input") or e.data.get("output")) for e in events
    ]


def test_a_streamed_message_read_whole_is_one_message_with_its_final_text() -> None:
    events, used, _ = agent_format("claude").parse(DATA, 0, "chat:s", WarningTally(), {})
    assert used == len(DATA)
    assert _said(events) == [
        ("user_message", "where does the otter config live"),
        ("assistant_message", FINAL),
        ("tool_call", "file_path: otter.toml"),
        ("tool_result", "otter_depth = 3"),
        ("assistant_message", "The otter config sets depth 3."),
    ]
    assert all("beaver" not in str(e.data) for e in events)


def test_a_snapshot_in_a_later_pass_replaces_the_message_under_its_first_id_and_seq() -> None:
    fmt = agent_format("claude")
    cut = DATA.index(b"\n", DATA.index(b'"uuid": "a2"')) + 1  # up to the first text snapshot
    first, used, state = fmt.parse(DATA[:cut], 0, "chat:s", WarningTally(), {})
    shown = [e for e in first if e.type == "assistant_message"]
    assert [(e.data["id"], e.data["text"]) for e in shown] == [("a2", "Let me check")]
    rest, _, _ = fmt.parse(DATA[cut:], used, "chat:s", WarningTally(), state)
    again = [e for e in rest if e.data.get("replaces")]
    assert [(e.data["id"], e.seq, e.data["text"]) for e in again] == [("a2", shown[0].seq, FINAL)]
    assert [e.type for e in rest if not e.data.get("replaces")] == [
        "tool_call", "tool_result", "assistant_message",
    ]  # fmt: skip
