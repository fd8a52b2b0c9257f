"""Exact places: a terminal hit's link lands on its matching line, and chat,
terminal and commit links carry their lane's portable envelope. The real demo, indexed by the
real service; the lines are read back from the real transcripts."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from engine.demo import DEMO_NOW
from engine.embedded import EmbeddedClient
from engine.links.deeplink import parse_deep_link
from engine.project.transcripts import read_transcript, transcript_file
from engine.terminal.lines import first_matching_line
from engine.terminal.sanitize import sanitize_lines
from engine.types import SearchQueryArgs


def _now() -> datetime:
    return DEMO_NOW


@pytest.fixture(scope="module")
def client(
    demo_project: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[EmbeddedClient]:
    from engine.demo.copy import copy_demo

    root = copy_demo(demo_project, tmp_path_factory.mktemp("places") / "demo")
    opened = EmbeddedClient.open(root, clock=_now, start_worker=False)
    opened.service.catch_up()
    yield opened
    opened.close()


def _line_at(path: Path, offset: int) -> str:
    data = read_transcript(path, offset, 64 * 1024).data
    (text, *_), _ = sanitize_lines(data[: data.index(b"\n") + 1], alt_screen=False)
    assert text is not None
    return text


def test_a_terminal_hit_links_to_its_first_matching_line(client: EmbeddedClient) -> None:
    result = client.query(SearchQueryArgs(query="ReadTimeoutError", kinds=("terminal",), limit=20))
    chunks = [item for item in result.items if "@" in item.doc_id]
    assert chunks
    moved = 0
    for item in chunks:
        link = parse_deep_link(item.deep_link)
        chunk_offset = int(item.doc_id.rsplit("@", 1)[1])
        assert item.anchor == str(chunk_offset)  # the doc and its anchor keep the chunk's start
        assert link.offset is not None
        assert link.offset >= chunk_offset
        moved += link.offset > chunk_offset
        path = transcript_file(client.project, "terminal", link.target)
        assert path is not None
        assert "readtimeouterror" in _line_at(path, link.offset).lower()
    assert moved  # at least one match is not on its chunk's first line (the pytest run)


def test_chat_terminal_and_commit_links_carry_their_lanes_envelope(client: EmbeddedClient) -> None:
    lanes = {lane.id: lane for lane in client.list_lanes()}
    result = client.query(
        SearchQueryArgs(query="retry", kinds=("chat", "terminal", "commit"), limit=100)
    )
    seen = set()
    for item in result.items:
        link = parse_deep_link(item.deep_link)
        lane = lanes.get(item.lane_id or "")
        if lane is None or lane.branch is None:
            continue
        assert link.envelope is not None, item.deep_link
        assert link.envelope.branch == lane.branch
        assert link.envelope.repo == "acme/payments-api"
        seen.add(item.kind)
        if lane.branch == "feature/ABC-123-retry-backoff":  # PR 41's head; Linear id in the name
            assert (link.envelope.pr, link.envelope.linear) == (41, "ABC-123")
    assert seen == {"chat", "terminal", "commit"}


def test_first_matching_line_reads_the_visible_text() -> None:
    raw = (
        b"\x1b[32mok\x1b[0m first\n"
        b"\x1b[?1049hhidden ReadTimeoutError in vim\n\x1b[?1049l"  # alternate screen: unseen
        b"progress 10%\rReadTime\x1b[1moutError\x1b[0m here\n"
        b"ReadTimeoutError again\n"
    )
    offset = first_matching_line(raw, 1000, ["readtimeouterror"])
    # The third raw line (it starts with the escape that leaves the alternate screen): its \r
    # frame and bold escape resolve to the visible "ReadTimeoutError here".
    assert offset == 1000 + raw.index(b"\n\x1b[?1049l") + 1
    assert first_matching_line(raw, 0, ["nowhere"]) is None
    assert first_matching_line(b"no newline ReadTimeoutError", 0, ["ReadTimeoutError"]) is None
    assert first_matching_line(raw, 0, []) is None


def test_a_matching_line_found_before_is_found_again_in_the_bytes_read_now(tmp_path: Path) -> None:
    """A page asked again reuses each terminal hit's matching line only for the very bytes it
    was found in: the log rewritten in place (same length), the line is looked for again."""
    from engine.links import places
    from engine.project.model import Project

    log = tmp_path / ".ade" / "terminals" / "t1.log"
    log.parent.mkdir(parents=True)
    log.write_bytes(b"$ make\r\nbuilding\r\nwombat failure\r\ndone\r\n")
    project = Project(root=tmp_path, id="p", name="p", is_git=False)
    first = places._matching_line(project, "t1", 0, ["wombat"])
    assert first == len(b"$ make\r\nbuilding\r\n")
    assert places._matching_line(project, "t1", 0, ["wombat"]) == first  # kept
    log.write_bytes(b"$ make\r\nwombat!!\r\nbuilding failure\r\ndone\r\n")
    assert places._matching_line(project, "t1", 0, ["wombat"]) == len(b"$ make\r\n")
    log.write_bytes(b"$ make\r\nbuilding\r\nnumbat failure\r\ndone\r\n")
    assert places._matching_line(project, "t1", 0, ["wombat"]) is None
