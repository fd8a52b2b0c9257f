"""A VS Code user setting that moves an extension's storage, read from the user's ``settings.json``.

Roo Code keeps its tasks in ``<its global storage>/tasks/`` unless the user set
``roo-cline.customStoragePath`` (RooCodeInc/Roo-Code ``src/package.json:364``; read by
``src/utils/storage.ts:14-48``, ``getStorageBasePath``: ``getConfiguration("roo-cline")
.get("customStoragePath")``; tasks then go to ``<that folder>/tasks/<id>/``,
``getTaskDirectoryPath`` lines 53-58, and the history index with them,
``src/core/task-persistence/TaskHistoryStore.ts:552-555``). The setting is written to the user's
settings (``ConfigurationTarget.Global``, ``storage.ts:128``): ``<user data>/User/settings.json``,
JSON with comments and trailing commas (VS Code's JSONC). Roo Code uses the folder only when it
can create and write it (``storage.ts:32-46``), else its default: both are read here.

Read bounded (``MAX_SETTINGS`` bytes) through ``engine.project.safe_io`` (a FIFO or a link out
is refused, never waited on); a file that cannot be read or parsed is ``Unreadable`` (the
agent's listing counts it once, ``unreadable``), a missing one names no folder. Only an
absolute path is followed (Roo Code's prompt asks for one, ``storage.ts:112-115``). Every
profile's settings are read (``settings_files``): a folder any of them names is read.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import Any

from engine.project.safe_io import JsonRejected, UnsafeFile, loads_json, read_regular

SETTINGS_FILE = Path("User") / "settings.json"
"""The user's settings under a user data folder (the default profile's)."""

PROFILES = Path("User") / "profiles"
"""Each other profile's folder, ``<id>/settings.json`` its settings (VS Code's
``src/vs/platform/userDataProfile/common/userDataProfile.ts``, ``toUserDataProfile``:
``settingsResource: joinPath(location, 'settings.json')``). An extension's global storage is the
default profile's whichever profile runs (the extension host is given
``defaultProfile.globalStorageHome``): only where it is moved differs per profile."""

MAX_PROFILES = 64
"""Profiles whose settings are read, per user data folder."""

MAX_SETTINGS = 1024 * 1024
"""Bytes of ``settings.json`` read; a longer file is unreadable (a settings file is a few KB)."""

_STRING = r'"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"'
_BLOCK = r"/\*(?:[^*]|\*(?!/))*+\*/"


@functools.cache
def _noise_re() -> re.Pattern[str]:
    """A string (kept), or a comment or a trailing comma (group 1: dropped); compiled on first
    use: a warm search reads no settings file (their stats are in the manifest)."""
    return re.compile(
        rf"{_STRING}|(//[^\n]*+|/\*.*?(?:\*/|\Z)|,(?=(?:\s|//[^\n]*+|{_BLOCK})*+[}}\]]))",
        re.DOTALL,
    )


MAX_REMEMBERED = 32
"""Settings files whose answer is remembered (by their stat) between calls: each listing and
each warm run asks for the folders again."""

_remembered: dict[tuple[str, str], tuple[tuple[int, int, int], Path | Unreadable | None]] = {}


class Unreadable:
    """A settings file that exists but cannot be read or parsed."""

    __slots__ = ("path",)

    def __init__(self, path: Path) -> None:
        self.path = path


def loads_jsonc(text: str) -> Any:
    """One JSONC document (``//`` and ``/* */`` comments, trailing commas) parsed as JSON.

    Raises:
        JsonRejected: not JSON once the comments and trailing commas are gone.
    """
    parts: list[str] = []
    at = 0
    for match in _noise_re().finditer(text):
        if match.group(1) is not None:
            parts.append(text[at : match.start()])
            at = match.end()
    parts.append(text[at:])
    return loads_json("".join(parts))


def read_settings(path: Path, needle: str = "") -> dict[str, Any] | Unreadable | None:
    """The settings object of ``path``; None when there is none (missing, not an object, or
    without ``needle`` in its text: nothing to parse)."""
    try:
        data = read_regular(path, MAX_SETTINGS + 1)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, UnsafeFile):
        return Unreadable(path)
    if len(data) > MAX_SETTINGS:
        return Unreadable(path)
    if needle.encode() not in data:
        return None
    try:
        doc = loads_jsonc(data.decode("utf-8", errors="replace"))
    except JsonRejected:
        return Unreadable(path)
    return doc if isinstance(doc, dict) else None


def setting(doc: dict[str, Any], key: str) -> Any:
    """``key`` (``section.name``) of a settings object: the dotted key, else nested."""
    if key in doc:
        return doc[key]
    section, _, name = key.rpartition(".")
    nested = doc.get(section)
    return nested.get(name) if isinstance(nested, dict) else None


def settings_files(user_data: Path) -> list[Path]:
    """The user's settings files under ``user_data``: the default profile's
    ``User/settings.json``, then each other profile's ``User/profiles/<id>/settings.json`` (at
    most ``MAX_PROFILES``)."""
    profiles = user_data / PROFILES
    try:
        with os.scandir(profiles) as listing:
            names = sorted(entry.name for entry in listing)[:MAX_PROFILES]
    except OSError:
        names = []
    return [user_data / SETTINGS_FILE, *(profiles / name / "settings.json" for name in names)]


def setting_folders(user_data: Path, key: str) -> list[Path | Unreadable]:
    """The absolute folders setting ``key`` names in ``user_data``'s settings files (each
    profile's), and those files that cannot be read."""
    if not os.path.isdir(user_data):  # no product's data: no settings file (one stat, not two)
        return []
    found = (setting_folder(path, key) for path in settings_files(user_data))
    return [each for each in found if each is not None]


def settings_signature(user_data: Path) -> tuple[tuple[int, int, int] | None, ...]:
    """What ``setting_folders(user_data, …)`` answers from: the stat of each settings file
    (None when missing); empty when there is no such user data folder."""
    if not os.path.isdir(user_data):
        return ()
    found: list[tuple[int, int, int] | None] = []
    for path in settings_files(user_data):
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            found.append(None)
        else:
            found.append((st.st_mtime_ns, st.st_size, st.st_ino))
    return tuple(found)


def setting_folder(path: Path, key: str) -> Path | Unreadable | None:
    """The absolute folder setting ``key`` names in the settings file ``path``, if any
    (remembered while the file's stat is unchanged)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None  # missing: nothing moved (a dangling link too)
    signature = (st.st_mtime_ns, st.st_size, st.st_ino)
    known = _remembered.get((str(path), key))
    if known is not None and known[0] == signature:
        return known[1]
    found = _folder(path, key)
    if len(_remembered) >= MAX_REMEMBERED:
        _remembered.clear()
    _remembered[(str(path), key)] = (signature, found)
    return found


def _folder(path: Path, key: str) -> Path | Unreadable | None:
    doc = read_settings(path, key.rpartition(".")[2])
    if doc is None or isinstance(doc, Unreadable):
        return doc
    value = setting(doc, key)
    if not isinstance(value, str) or not value or not os.path.isabs(value):
        return None
    return Path(value)
