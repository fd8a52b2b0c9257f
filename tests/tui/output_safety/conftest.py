"""Fixtures of the output-safety tests: the planted project (``hostile_project``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # the test modules import hostile_project by name

from hostile_project import _caller_env, hostile_project, linear_url

__all__ = ["_caller_env", "hostile_project", "linear_url"]
