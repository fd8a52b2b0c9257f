"""Textual stylesheets (``*.tcss``), shipped inside the wheel as package data."""

from __future__ import annotations

from pathlib import Path


def style_path(name: str) -> Path:
    """The filesystem path of stylesheet ``name`` (e.g. ``"palette.tcss"``).

    Works from a checkout and from an installed wheel (where package data sits beside the module
    on disk; a zipped install is extracted by ``as_file``, which keeps the file for the process).
    ``importlib.resources`` is imported only for that zipped case: it costs the palette's first
    paint a few milliseconds.
    """
    beside = Path(__file__).with_name(name)
    if beside.is_file():
        return beside
    from importlib.resources import as_file, files

    resource = files(__name__) / name
    with as_file(resource) as path:
        return Path(path)
