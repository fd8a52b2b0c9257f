"""Sessions Qwen Code 0.24.4 really wrote (``tests/fixtures/agents/qwen/real/``, recorded against
a scripted model) read as they were said: every prompt, answer, tool call and result at its role
and in order, the model's thought parts and the telemetry records hidden, the resumed turn
appended to its session, each session tied to the lane it ran in."""

from __future__ import annotations

import json
from pathlib import Path

from engine.external.heads import HeadCache
from engine.external.qwen import FORMAT
from engine.project.tally import WarningTally
from tests.engine.external.agent_homes import install_real_home
from tests.engine.external.fixture_reads import events_of, shown
from tests.engine.external.test_fixture_sessions import _lanes

PROJECT_SESSION = "63e0b8ec-0b64-4b14-8501-f16786f00060"
LANE_SESSION = "5c197ce4-9de9-48f9-940d-72ec60dfc54c"

PROJECT_EVENTS = [
    ("user_message", "please list the files, pelican"),
    ("tool_call", "run_shell_command command: ls\ndescription: list files"),
    ("tool_result", "Output: README.md\nnotes.txt"),
    ("assistant_message", "The folder holds README.md and notes.txt, qwenanswerfig."),
    ("user_message", "continue please, osprey"),
    ("assistant_message", "Continued: qwenanswerkiwi."),
]
"""The first run's turn, then the one ``qwen --resume`` appended to the same file."""

LANE_EVENTS = [
    ("user_message", "in this lane read the notes, heron"),
    ("tool_call", "read_file file_path: @LANE@/notes.txt"),
    ("tool_result", "qwenlanenote"),
    ("assistant_message", "The notes say qwenlanenote, qwenanswerlime."),
]
HIDDEN = ("qwenhiddenthought", "qwenhiddensecond", "attribution-snapshot", "qwen-code.api_response")
"""The model's thought parts, and the system records Qwen Code keeps beside the chat."""


def test_each_real_qwen_session_is_read_in_its_lane_with_every_event(tmp_path: Path) -> None:
    lanes = _lanes(tmp_path)
    home = install_real_home("qwen", tmp_path / "qwen-home", lanes[0].path, lanes[1].path)
    environ = {"HOME": str(tmp_path / "user"), "QWEN_RUNTIME_DIR": str(home)}
    tally = WarningTally()
    found = {m.id: m for m in FORMAT.sessions(lanes, tally, environ, HeadCache(None))}
    assert tally.total() == 0
    project, lane = found[f"qwen-{PROJECT_SESSION}"], found[f"qwen-{LANE_SESSION}"]
    assert (project.lane_id, lane.lane_id) == ("primary", "fix")
    assert project.title == "please list the files, pelican"
    assert FORMAT.resume_argv(project) == ("qwen", "--resume", PROJECT_SESSION)
    for meta, want in ((project, PROJECT_EVENTS), (lane, LANE_EVENTS)):
        assert meta.transcript_path is not None
        skipped = WarningTally()
        events = events_of("qwen", meta.transcript_path, skipped)
        assert skipped.total() == 0
        assert [e.type for e in events] == [etype for etype, _ in want]
        for event, (_, text) in zip(events, want, strict=True):
            assert text.replace("@LANE@", str(lanes[1].path)) in shown(event), shown(event)
        assert all(word not in json.dumps(e.data) for e in events for word in HIDDEN)
