"""The one way ``.ade/`` metadata files are written as JSON.

Two spaces of indent, keys in the order given, text as itself (``ensure_ascii=False``: a title in
Greek stays readable in an editor) and a trailing newline, UTF-8. The same value always gives the
same bytes, so the demo project is reproducible and a rewritten record diffs cleanly.
"""

from __future__ import annotations

import json
from typing import Any


def json_bytes(value: Any) -> bytes:
    """``value`` as pretty JSON with a trailing newline, encoded as UTF-8."""
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
