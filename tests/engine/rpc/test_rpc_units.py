"""Pure pieces of the daemon: framing, strict decoding, the action domain, roles, the registry."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.actions import SearchDomain, strip_caller_scope
from engine.errors import UsageError
from engine.rpc.framing import FrameDecoder, FrameTooLarge, compact_json
from engine.rpc.registry import add_project, load_registry, remove_project, save_registry
from engine.rpc.roles import client_token, ensure_cto_token, role_for, token_path
from engine.rpc.validation import MAX_DEPTH, RpcError, decode_frame
from engine.types import IndexStatus, RebuildResult, SearchQueryArgs, SearchQueryResult

# ---- framing -------------------------------------------------------------------------------


def test_frames_split_across_reads_and_blank_lines_skipped() -> None:
    decoder = FrameDecoder(max_frame=100)
    assert decoder.feed(b'{"a"') == []
    assert decoder.pending
    assert decoder.feed(b":1}\n\n  \n[1]\n{") == [b'{"a":1}', b"[1]"]
    assert decoder.feed(b"}\n") == [b"{}"]
    assert not decoder.pending


def test_oversized_frame_raises_with_or_without_newline() -> None:
    with pytest.raises(FrameTooLarge):
        FrameDecoder(max_frame=10).feed(b"x" * 11)
    with pytest.raises(FrameTooLarge):
        FrameDecoder(max_frame=10).feed(b"x" * 11 + b"\n")
    assert FrameDecoder(max_frame=10).feed(b"x" * 10 + b"\n") == [b"x" * 10]


@given(st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")), max_size=8), st.data())
def test_any_chunking_gives_the_same_frames(lines: list[bytes], data: st.DataObject) -> None:
    stream = b"".join(line + b"\n" for line in lines)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=5)))
    decoder, frames, start = FrameDecoder(), [], 0
    for cut in [*cuts, len(stream)]:
        frames += decoder.feed(stream[start:cut])
        start = cut
    assert frames == [line for line in lines if line.strip()]


# ---- strict decoding -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["NaN", "-Infinity", "[Infinity]", "1e400", "-1e999", "9007199254740993", '{"a":1,"a":1}',
     '{"p":{"x":{"k":1,"k":2}}}', "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)],
)  # fmt: skip
def test_decode_refuses(text: str) -> None:
    with pytest.raises(RpcError) as info:
        decode_frame(text.encode())
    assert info.value.code == -32700


def test_decode_accepts_the_edges() -> None:
    assert decode_frame(b"9007199254740992") == 2**53
    assert decode_frame(b"1.5e3") == 1500.0
    nested = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert decode_frame(nested.encode()) is not None


# ---- the action domain ---------------------------------------------------------------------

SPELLINGS = [
    "callerScope",
    "caller_scope",
    "CallerScope",
    "CALLER_SCOPE",
    "caller-scope",
    "callerscope",
]


@pytest.mark.parametrize("key", SPELLINGS)
def test_caller_scope_is_stripped_at_any_depth(key: str) -> None:
    params = {key: {"sessionId": "s"}, "a": [{key: 1, "b": {key: 2, "c": 3}}], "query": "x"}
    assert strip_caller_scope(params) == {"a": [{"b": {"c": 3}}], "query": "x"}


class RecordingHost:
    """Records what reached it: the CTO rule must be enforced before anything does."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Path, Any]] = []

    def query(self, root: Path, args: SearchQueryArgs, *, fresh: bool = True) -> SearchQueryResult:
        self.calls.append(("query", root, args))
        return SearchQueryResult(items=(), next_cursor=None, total=0)

    def index_status(self, root: Path) -> IndexStatus:
        raise AssertionError("unused")

    def rebuild_index(self, root: Path) -> RebuildResult:
        self.calls.append(("rebuild", root, None))
        return RebuildResult(ok=True, doc_count=0, duration_ms=0)


@pytest.mark.parametrize("key", SPELLINGS)
def test_query_reaches_the_host_without_caller_scope(key: str) -> None:
    host = RecordingHost()
    params = {"projectRoot": "/p", "query": "x", key: {"sessionId": "s1"}}
    SearchDomain(host).call("search.query", params, "agent")
    assert host.calls == [("query", Path("/p"), SearchQueryArgs(query="x"))]


def test_agent_rebuild_is_forbidden_without_side_effects(caplog: pytest.LogCaptureFixture) -> None:
    host = RecordingHost()
    with pytest.raises(RpcError) as info:
        SearchDomain(host).call("search.rebuildIndex", {"projectRoot": "/p"}, "agent", "pid=9")
    assert info.value.code == -32001
    assert host.calls == []
    assert "refused search.rebuildIndex for role=agent peer=pid=9" in caplog.text
    SearchDomain(host).call("search.rebuildIndex", {"projectRoot": "/p"}, "cto")
    assert host.calls == [("rebuild", Path("/p"), None)]


@pytest.mark.parametrize(
    "method", ["search.ingest", "search.clear", "rpc.hello", "query", "search."]
)
def test_only_the_allowlist_is_reachable(method: str) -> None:
    with pytest.raises(RpcError) as info:
        SearchDomain(RecordingHost()).call(method, {}, "cto")
    assert info.value.code == -32601


# ---- roles ---------------------------------------------------------------------------------


def test_token_is_created_private_and_stable(tmp_path: Path) -> None:
    token = ensure_cto_token(tmp_path / "cfg")
    assert len(token) == 64
    assert stat.S_IMODE(token_path(tmp_path / "cfg").stat().st_mode) == 0o600
    assert ensure_cto_token(tmp_path / "cfg") == token


def test_a_readable_token_is_replaced(tmp_path: Path) -> None:
    token = ensure_cto_token(tmp_path)
    os.chmod(token_path(tmp_path), 0o644)
    assert client_token(tmp_path, {}) is None  # a leaked secret proves nothing
    assert ensure_cto_token(tmp_path) != token


def test_agent_sessions_do_not_present_the_token(tmp_path: Path) -> None:
    token = ensure_cto_token(tmp_path)
    assert client_token(tmp_path, {}) == token
    assert client_token(tmp_path, {"ADE_SESSION_ID": "chat-1"}) is None
    assert client_token(tmp_path, {"ADE_SESSION_ID": "chat-1", "ADE_ROLE": "agent"}) is None
    assert client_token(tmp_path, {"ADE_SESSION_ID": "chat-1", "ADE_ROLE": "cto"}) == token


def test_role_for() -> None:
    assert role_for("abc", "abc") == "cto"
    assert role_for("abd", "abc") == "agent"
    assert role_for(None, "abc") == "agent"
    assert role_for(["abc"], "abc") == "agent"
    assert role_for("", "") == "agent"


# ---- registry ------------------------------------------------------------------------------


def _project(root: Path, pid: str, name: str) -> Path:
    (root / ".ade").mkdir(parents=True)
    (root / ".ade" / "project.json").write_text(f'{{"id": "{pid}", "name": "{name}"}}')
    return root


def test_registry_add_list_remove(tmp_path: Path) -> None:
    registry = tmp_path / "cfg" / "projects.json"
    one = _project(tmp_path / "one", "p1", "One")
    two = _project(tmp_path / "two", "p2", "Two")
    add_project(registry, one)
    add_project(registry, two)
    add_project(registry, one)  # idempotent by root
    projects, warnings = load_registry(registry)
    assert [(p.id, p.name, p.root) for p in projects] == [
        ("p2", "Two", two.resolve()), ("p1", "One", one.resolve())
    ]  # fmt: skip
    assert warnings == []
    assert stat.S_IMODE(registry.stat().st_mode) == 0o600
    assert remove_project(registry, "One").id == "p1"
    assert remove_project(registry, str(two)).id == "p2"
    assert load_registry(registry) == ([], [])
    with pytest.raises(UsageError, match="no registered project"):
        remove_project(registry, "p1")


def test_registry_refuses_a_duplicate_id(tmp_path: Path) -> None:
    registry = tmp_path / "projects.json"
    add_project(registry, _project(tmp_path / "a", "same", "A"))
    with pytest.raises(UsageError, match="already registered"):
        add_project(registry, _project(tmp_path / "b", "same", "B"))


def test_registry_skips_malformed_entries_and_survives_garbage(tmp_path: Path) -> None:
    registry = tmp_path / "projects.json"
    registry.write_text('{"projects": [{"id": "x", "name": "X", "root": "/r"}, 5, {"id": "y"}]}')
    projects, warnings = load_registry(registry)
    assert [p.id for p in projects] == ["x"]
    assert len(warnings) == 2
    registry.write_text("{not json")
    assert load_registry(registry)[0] == []
    save_registry(registry, projects)
    assert load_registry(registry) == (projects, [])


_PLAIN = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(_PLAIN)
def test_a_request_is_written_as_json_writes_it(value: Any) -> None:
    """``compact_json`` (a request sent before ``json`` is imported) writes json.dumps's text."""
    assert compact_json(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_what_compact_json_does_not_write_itself_json_writes() -> None:
    odd = {"limit": 1.5, "kinds": ("chat",), 3: [True], "deep": [[[[]]]]}
    assert compact_json(odd) == json.dumps(odd, ensure_ascii=False, separators=(",", ":"))
    looped: list[Any] = []
    looped.append(looped)
    with pytest.raises(ValueError, match="Circular reference"):
        compact_json(looped)
