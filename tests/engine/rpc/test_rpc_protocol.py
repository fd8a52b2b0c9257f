"""The daemon's wire protocol against a real subprocess: every error code, and it keeps serving.

These requests never open a project, so they exercise the transport alone (RELIABILITY 23).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

PARSE, INVALID_REQ, NOT_FOUND, INVALID_PARAMS, FORBIDDEN = -32700, -32600, -32601, -32602, -32001

BAD_FRAMES = [
    (b"garbage", PARSE),
    (b'{"jsonrpc":"2.0","id":1,"method":"search.query"', PARSE),
    (b'{"jsonrpc":"2.0","id":1,"method":"search.query","params":{"limit":NaN}}', PARSE),
    (b'{"jsonrpc":"2.0","id":1,"method":"search.query","params":{"limit":Infinity}}', PARSE),
    (b'{"jsonrpc":"2.0","id":1,"method":"search.query","params":{"limit":1e400}}', PARSE),
    (
        b'{"jsonrpc":"2.0","id":1,"method":"search.query","params":{"limit":' + b"9" * 40 + b"}}",
        PARSE,
    ),
    (
        b'{"jsonrpc":"2.0","id":1,"method":"search.query","params":{"callerScope":1,"callerScope":2}}',
        PARSE,
    ),
    (b"[" * 40 + b"]" * 40, PARSE),
    (b"[" * 100_000 + b"]" * 100_000, PARSE),
    (b'\xff\xfe{"jsonrpc":"2.0"}', PARSE),
    (b"[]", INVALID_REQ),
    (b"42", INVALID_REQ),
    (b'"search.query"', INVALID_REQ),
    (b'{"id":1,"method":"search.query"}', INVALID_REQ),
    (b'{"jsonrpc":"1.0","id":1,"method":"search.query"}', INVALID_REQ),
    (b'{"jsonrpc":"2.0","id":true,"method":"search.query"}', INVALID_REQ),
    (b'{"jsonrpc":"2.0","id":1,"method":7}', INVALID_REQ),
    (b'{"jsonrpc":"2.0","id":1,"method":"search.query","extra":1}', INVALID_REQ),
    (b'{"jsonrpc":"2.0","id":1,"method":"search.delete","params":{}}', NOT_FOUND),
    (b'{"jsonrpc":"2.0","id":1,"method":"search.ingest","params":{}}', NOT_FOUND),
    (b'{"jsonrpc":"2.0","id":1,"method":"lanes.list","params":{}}', NOT_FOUND),
    (b'{"jsonrpc":"2.0","id":1,"method":"search.query","params":[1,2]}', INVALID_PARAMS),
]


@pytest.mark.parametrize(("frame", "code"), BAD_FRAMES, ids=lambda v: repr(v)[:40])
def test_bad_frame_gets_its_code_and_the_connection_keeps_serving(
    module_daemon_rpc: Any, frame: bytes, code: int
) -> None:
    daemon = module_daemon_rpc
    conn = daemon.connect()
    response = conn.raw(frame)
    assert response["error"]["code"] == code
    assert response["jsonrpc"] == "2.0"
    # The same connection answers the next request, and so does a new one.
    assert conn.call("rpc.status")["result"]["pid"] == daemon.proc.pid
    assert daemon.connect().call("rpc.status")["result"]["pid"] == daemon.proc.pid


BAD_PARAMS: list[dict[str, Any]] = [
    {},  # projectRoot missing
    {"projectRoot": "relative/path"},
    {"projectRoot": 7},
    {"projectRoot": "/x", "limit": True},
    {"projectRoot": "/x", "limit": 1.5},
    {"projectRoot": "/x", "limit": 0},
    {"projectRoot": "/x", "limit": 100_000},
    {"projectRoot": "/x", "limit": "10"},
    {"projectRoot": "/x", "query": 5},
    {"projectRoot": "/x", "query": "x" * 5000},
    {"projectRoot": "/x", "kinds": "chat"},
    {"projectRoot": "/x", "kinds": []},
    {"projectRoot": "/x", "kinds": ["chat", "email"]},
    {"projectRoot": "/x", "laneId": 3},
    {"projectRoot": "/x", "cursor": {"o": 1}},
    {"projectRoot": "/x", "unknown": 1},
    {"projectRoot": "/x", "lane_id": "a"},  # snake_case is not the wire form
    {"projectRoot": "/definitely/not/here", "query": "x"},  # ProjectError → invalid params
]


@pytest.mark.parametrize("params", BAD_PARAMS, ids=lambda p: json.dumps(p)[:40])
def test_bad_query_params_are_invalid_params(
    module_daemon_rpc: Any, params: dict[str, Any]
) -> None:
    conn = module_daemon_rpc.connect()
    assert conn.call("search.query", params)["error"]["code"] == INVALID_PARAMS
    assert "result" in conn.call("rpc.status")


@pytest.mark.parametrize("method", ["search.indexStatus", "search.rebuildIndex"])
def test_root_only_methods_refuse_extra_params(daemon: Any, method: str) -> None:
    conn = daemon.cto()
    response = conn.call(method, {"projectRoot": "/x", "query": "a"})
    assert response["error"]["code"] == INVALID_PARAMS
    assert conn.call(method, {})["error"]["code"] == INVALID_PARAMS


def test_batch_answers_each_member_in_order(daemon: Any) -> None:
    conn = daemon.connect()
    batch = [
        {"jsonrpc": "2.0", "id": "a", "method": "rpc.status"},
        {"jsonrpc": "2.0", "id": "b", "method": "search.nope"},
        {"jsonrpc": "2.0", "method": "rpc.status"},  # a notification: no answer
        5,
    ]
    answers = conn.raw(json.dumps(batch).encode())
    assert [a["id"] for a in answers] == ["a", "b", None]
    assert answers[1]["error"]["code"] == NOT_FOUND
    assert answers[2]["error"]["code"] == INVALID_REQ


def test_oversized_frame_is_cut_off_and_others_are_served(daemon: Any) -> None:
    conn = daemon.connect()
    conn.send_raw(b'{"jsonrpc":"2.0","id":1,"method":"search.query","params":{"query":"')
    answers: list[Any] = []
    try:
        for _ in range(40):  # 2.5 MiB without a newline
            conn.send_raw(b"a" * 65536)
        answers.append(conn.read_line())
        answers.append(conn.read_line())
    except (EOFError, ConnectionResetError, BrokenPipeError):
        pass  # cut off: the point of the test
    assert len(answers) <= 1
    assert all(answer["error"]["code"] == INVALID_REQ for answer in answers)
    assert daemon.connect().call("rpc.status")["result"]["pid"] == daemon.proc.pid


def test_stalled_client_is_cut_off_while_others_are_served(daemon: Any) -> None:
    stalled = daemon.connect(timeout=10)
    stalled.send_raw(b'{"jsonrpc":"2.0","id":1,"method":"rpc.st')  # and never finishes
    other = daemon.connect()
    for _ in range(3):
        assert "result" in other.call("rpc.status")
    # The daemon closes the stalled connection after its 0.5 s frame deadline.
    assert stalled.closed_by_peer()
    assert "cut off" in daemon.log_text()
    assert "result" in other.call("rpc.status")
