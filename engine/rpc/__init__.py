"""The local search daemon: JSON-RPC 2.0 over a user-only Unix socket (DESIGN §7, docs/daemon.md).

``paths`` (where the socket lives), ``framing`` and ``validation`` (what a frame may contain),
``roles`` (how a caller proves the CTO role), ``registry`` (``ade projects``), ``router`` (the
machine router across registered projects), ``services`` (one search service per project),
``lifecycle`` (lock, stale socket, bind), ``server`` (the asyncio connection loop) and ``client``
(``DaemonClient``, the ``SearchClient`` over the socket).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)
