"""``python -m engine.rpc``: run the daemon (what ``ade daemon run`` does, without the TUI package)."""

from __future__ import annotations

import sys

from engine.rpc.cli_args import main

sys.exit(main())
