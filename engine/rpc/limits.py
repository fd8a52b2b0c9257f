"""The daemon's per-connection deadlines and caps (RELIABILITY 23), read by the connection loop
(``engine.rpc.server``), the admission of a new connection (``engine.rpc.admission``), the
status and the command line (``engine.rpc.cli_args``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ServerLimits:
    """Per-connection limits (RELIABILITY 23); tests shorten the deadlines."""

    frame_deadline: float = 5.0
    """Seconds a started frame may take to finish: a real client sends a line in one write."""
    idle_timeout: float = 120.0
    """Seconds a connection may sit without a request; clients reconnect transparently."""
    write_timeout: float = 10.0
    """Seconds a client may take to read its answer before it is dropped."""
    max_connections: int = 64
    """Concurrent connections: more than any palette + CLI + agents need, bounded for safety.
    At the cap the oldest idle connection is closed for a new one; only when every connection
    is working is a new one refused."""
    idle_per_uid: int = 16
    """Idle connections one uid may hold open; beyond it the oldest idle ones are closed, so a
    client that opens and abandons connections cannot lock others out (slow and idle clients)."""
    idle_grace: float = 1.0
    """Seconds a connection must have been idle to count against its uid's idle budget: one of
    50 clients querying flat out is idle between an answer and its next request, and closing
    it then failed ~5% of their requests (ingestion first). The connection cap ignores the grace."""
    workers: int = 8
    """Engine calls in flight at once; apsw releases the GIL, so these overlap for real."""
    pipeline: int = 16
    """Requests a client may send ahead of their answers before the daemon stops reading."""
    query_hold: float | None = None
    """Longest a query waits for a due drain; None: the gate's default; 0: never waits."""
    idle_exit: float | None = None
    """Seconds without a request before the daemon stops by itself (``engine.rpc.idle``);
    None: never. A daemon ``ade search`` started for itself sets it (``engine.rpc.autostart``)."""
