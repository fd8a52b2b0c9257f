"""Textual stylesheets (``*.tcss``), shipped inside the wheel as package data."""

from __future__ import annotations

from importlib.resources import as_file, files
from pathlib import Path


def style_path(name: str) -> Path:
    """The filesystem path of stylesheet ``name`` (e.g. ``"palette.tcss"``).

    Works from a checkout and from an installed wheel (where package data sits beside the module
    on disk; a zipped install is extracted by ``as_file``, which keeps the file for the process).
    """
    resource = files(__name__) / name
    with as_file(resource) as path:
        return Path(path)
