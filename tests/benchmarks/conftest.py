"""The benchmarks are a top-level package of the checkout, not of the installed distribution."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
