"""A real daemon whose services hold a query ``slowpoke…`` in a long SQL statement.

Run as a script by ``test_rpc_cancel.py``: everything is the real daemon (socket, worker threads,
services, per-thread read connections) except that such a query first runs an unbounded count on
the service's own read connection, so only an interrupt of that connection ends it.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import apsw

import engine.rpc.daemon
from engine.embedded import EmbeddedClient
from engine.rpc.cli_args import main
from engine.rpc.services import embedded_factory
from engine.types import SearchQueryArgs, SearchQueryResult

HOLD_SQL = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 100000000000)"
    " SELECT count(*) FROM c"
)
log = logging.getLogger("engine.test.slow")  # under the logger the daemon configures


class SlowClient(EmbeddedClient):
    def query(self, args: SearchQueryArgs) -> SearchQueryResult:
        if args.query.startswith("slowpoke"):
            conn = self.service.readers.reader()
            log.info("holding %s", args.query)
            try:
                conn.execute(HOLD_SQL).fetchall()
            except apsw.InterruptError:
                log.info("interrupted %s", args.query)
                raise
        return super().query(args)


def slow_factory(backfill_delay: float, query_hold: float | None = None) -> object:
    real = embedded_factory(backfill_delay, query_hold)

    def open_client(root: Path) -> SlowClient:
        client = real(root)
        assert isinstance(client, EmbeddedClient)
        return SlowClient(client.service, client.clock)

    return open_client


engine.rpc.daemon.embedded_factory = slow_factory  # type: ignore[assignment]
sys.exit(main())
