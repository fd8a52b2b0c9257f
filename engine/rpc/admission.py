"""Which connections the daemon keeps open (RELIABILITY 23): each one's record (its peer, role,
requests in flight, whether closing it loses work) and making room for a new one. The oldest
idle connections beyond the newcomer's uid's idle budget are closed (slow and idle clients), then, at the
cap, the oldest idle one of anyone; only when every connection is working is a new one refused.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.actions import Role
from engine.basics.logs import get_logger
from engine.rpc.cancel import EngineCall
from engine.rpc.lifecycle import PeerCredentials
from engine.rpc.limits import ServerLimits

log = get_logger(__name__)


@dataclass(slots=True, eq=False)
class ServedConnection:
    """One admitted connection, as its reader, its answerer and the admission see it."""

    peer: PeerCredentials
    writer: asyncio.StreamWriter | None = None
    role: Role = "agent"
    inflight: dict[Any, EngineCall] = field(default_factory=dict)
    busy: bool = False
    partial: bool = False
    """Part of a frame has arrived without its newline."""
    queued: Callable[[], int] = lambda: 0
    last_active: float = field(default_factory=time.monotonic)
    evicted: bool = False

    @property
    def label(self) -> str:
        return f"pid={self.peer.pid} uid={self.peer.uid}"

    @property
    def idle(self) -> bool:
        """Nothing asked, nothing running, nothing half sent: closing it loses no work."""
        return not (self.busy or self.partial or self.inflight or self.queued())

    def evict(self) -> None:
        self.evicted = True
        if self.writer is not None:
            self.writer.close()  # the reader sees the end of the stream and winds down


def admit(
    open_connections: dict[ServedConnection, None], new: ServedConnection, limits: ServerLimits
) -> bool:
    """Make room for ``new``: close the oldest idle connections beyond its uid's idle budget
    and, at the cap, the oldest idle one of anyone. False when every connection works."""
    settled = time.monotonic() - limits.idle_grace
    same_uid = sorted((c for c in open_connections if c.idle and c.peer.uid == new.peer.uid
                       and c.last_active <= settled),
                      key=lambda c: c.last_active)  # fmt: skip
    for old in same_uid[: max(0, len(same_uid) - limits.idle_per_uid + 1)]:
        log.info("closed idle %s: over the idle budget of its uid", old.label)
        drop(open_connections, old)
    while len(open_connections) >= limits.max_connections:
        oldest = min((c for c in open_connections if c.idle), key=lambda c: c.last_active,
                     default=None)  # fmt: skip
        if oldest is None:
            return False
        log.info("closed idle %s: connection cap reached", oldest.label)
        drop(open_connections, oldest)
    open_connections[new] = None
    return True


def drop(open_connections: dict[ServedConnection, None], conn: ServedConnection) -> None:
    """Forget ``conn`` and close it (its reader then winds down)."""
    open_connections.pop(conn, None)
    conn.evict()
