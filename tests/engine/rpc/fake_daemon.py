"""A stand-in ade daemon for the trust tests: stdlib only (it runs as another user, under the
system Python), speaking the line-JSON framing. ``python3 fake_daemon.py SOCKET RECORD MODE``
binds SOCKET, prints ``ready``, greets every ``rpc.hello`` and answers every other request as
MODE says (``hangup``: closes the connection instead, a daemon killed mid-request); every byte a client sends is appended to RECORD, so a test can assert that nothing
(no query, no token) reached it.
"""

import json
import os
import socket
import sys

SHADOW_HIT = {
    "docId": "file:x", "kind": "file", "title": "shadow", "snippet": "root:x",
    "matchRanges": [], "tier": "body", "updatedAt": 0,
    "deepLink": "ade://file/../../../etc/shadow",
}  # fmt: skip

ANSWERS = {
    "ok": {"items": [], "nextCursor": None, "total": 0},
    "shape": {"items": "not a list", "nextCursor": None, "total": -1},
    "shadow": {"items": [SHADOW_HIT], "nextCursor": None, "total": 1},
    "escape": {"items": [{**SHADOW_HIT, "deepLink": "ade://file/a.py", "title": "\x1b]52;c;x\x07"}],
               "nextCursor": None, "total": "\x1b[2J"},
    # search.cli's shape, but an escape in a search's uncoloured output: a broken renderer
    "render-escape": {"exit": 0, "writes": [[1, "\x1b]52;c;eA==\x07 owned\n"]]},
}  # fmt: skip


def answer(mode: str, message: dict) -> bytes | None:
    ident = message.get("id")
    if message.get("method") == "rpc.hello":
        result = {"version": "0.0.fake", "role": "user", "contextServed": True}
    elif mode == "hangup":
        return None
    elif mode == "notjson":
        return b"this is not json\n"
    else:
        result = ANSWERS[mode]
    return json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}).encode() + b"\n"


def main() -> None:
    path, record, mode = sys.argv[1:4]
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    os.chmod(path, 0o777)  # reachable by the test's user: the checks, not the mode, must refuse
    server.listen(8)
    print("ready", flush=True)
    while True:
        conn, _ = server.accept()
        buffer = b""
        with conn:
            while data := conn.recv(65536):
                with open(record, "ab") as out:
                    out.write(data)
                buffer += data
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    try:
                        message = json.loads(line)
                    except ValueError:
                        continue
                    reply = answer(mode, message)
                    if reply is None:
                        break
                    conn.sendall(reply)
                else:
                    continue
                break


if __name__ == "__main__":
    main()
