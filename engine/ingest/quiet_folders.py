"""The ``.ade`` folders nothing was written in since the daemon last listed them (inotify).

Every answer of the daemon first compares the warm manifest (``engine.ingest.manifest``), and
the project's own ``.ade`` folders are the bulk of it at scale: one ``stat`` per transcript and
session file (562 at 100 MB, ~1.3 ms of system calls a request, a third of a rare query's daemon
time). An inotify watch on a folder reports every entry created, deleted, moved, written,
truncated or touched in it, and the event is queued by that system call itself (``fsnotify``
runs inside ``write(2)`` before it returns): a write that completed before a request is in the
queue when the request's catch-up reads it. So a folder with no event since its last listing
lists as it did, and its part of the manifest is reused without a ``stat`` of its entries, when:

- it was watched before that listing began, and is still the same folder (device and inode) at
  its path (``.ade`` or the folder replaced or moved away is listed again);
- it lies on a local file system the kernel reports every change of (ext2/3/4, XFS, Btrfs,
  tmpfs, F2FS; a network or FUSE file system changed from elsewhere raises no event here);
- none of its entries is a link, a folder or a file with a second name: what they point at,
  hold or are written through changes without an event in this folder.

The agent tools' folders that are not there (most of the ~40 a manifest looks in: the tools a
user never ran) are each a ``scandir`` raising ``FileNotFoundError`` a request. Such a folder is
known still missing while nothing changed in its *anchor*, the nearest folder above it that is
there: the topmost missing name (and every name under it) can only appear as an entry created
or moved into the anchor, which raises an event there. It is remembered only when that name has
no entry at all (``lstat``: a dangling link is listed each time, its target may appear without
an event), checked after the anchor's watch was added, and the anchor is checked the same folder
at its path (one ``stat`` per anchor per manifest).

(A write through a shared memory map raises no event either; transcripts, session records and
PR snapshots are written with ``write(2)``.)

Anything else lists in full, as without it: no inotify (not Linux, the watch limit reached), the
event queue overflowed (every folder forgotten), a folder that cannot be read or is missing. Only
the daemon keeps one (``engine.rpc.services``): a one-shot search lists once and exits. It keeps
one for all the projects it serves (``shared_quiet_folders``): a user's inotify instances are few
(128 by default) and each project's watcher needs its own.
"""

from __future__ import annotations

import os
import stat
import struct
import threading
from typing import Any

IN_MODIFY = 0x2
IN_ATTRIB = 0x4
IN_CLOSE_WRITE = 0x8
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_ONLYDIR = 0x01000000

WATCHED = (
    IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
    | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR
)  # fmt: skip
"""Every change of an entry's name, size, times or inode, and of the folder itself."""

LOCAL_FILE_SYSTEMS = frozenset({0xEF53, 0x58465342, 0x9123683E, 0x01021994, 0xF2F52010})
"""``statfs`` magic numbers (``linux/magic.h``): ext2/3/4, XFS, Btrfs, tmpfs, F2FS — changed
only through this kernel, which reports every change."""

Watched = tuple[int, tuple[int, int], tuple[int, int]]
"""A folder's watch descriptor, its identity (device, inode) and the mark ``remember`` checks."""

_EVENT = struct.Struct("iIII")
"""``struct inotify_event``'s head: wd, mask, cookie, len (then ``len`` bytes of name)."""


class Listed:
    """One folder as its last full listing saw it: what it added to the manifest."""

    __slots__ = ("count", "identity", "kept", "lines", "regular", "wd")

    def __init__(
        self,
        wd: int,
        identity: tuple[int, int],
        lines: bytes,
        kept: dict[str, str],
        regular: frozenset[str],
        count: int,
    ) -> None:
        self.wd = wd
        self.identity = identity
        self.lines = lines
        """The digest's input for the folder's entries (after its ``[folder]`` line)."""
        self.kept = kept
        self.regular = regular
        self.count = count


class Missing:
    """A folder known missing: the anchor above it whose watch vouches for that."""

    __slots__ = ("anchor", "identity", "wd")

    def __init__(self, anchor: str, wd: int, identity: tuple[int, int]) -> None:
        self.anchor = anchor
        self.wd = wd
        self.identity = identity


class QuietFolders:
    """The folders listed since their last change, for one service's manifests (thread-safe;
    the manifest runs under the drainer's lock anyway)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._libc: Any = None
        self._unavailable = False
        self._listed: dict[str, Listed] = {}
        self._missing: dict[str, Missing] = {}
        self._local: dict[tuple[int, int], bool] = {}
        self._events: dict[int, int] = {}
        """Events read per watch: a listing is kept only if none was read for its folder since
        it was watched (another service's catch-up may read them meanwhile)."""
        self._epoch = 0
        """Bumped by an overflow or a close: every listing made before is forgotten."""
        self.reused = 0
        """Folders answered from their last listing (tests and benchmarks read it)."""
        self.still_missing = 0
        """Folders answered missing without a ``scandir`` (tests and benchmarks read it)."""

    def _inotify(self) -> int | None:
        if self._fd is None and not self._unavailable:
            try:
                import ctypes
                import ctypes.util

                libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
                fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
            except (OSError, AttributeError):
                fd = -1
            if fd < 0:
                self._unavailable = True
                return None
            self._libc, self._fd = libc, fd
        return self._fd

    def forget_changed(self) -> None:
        """Read every queued event: each folder with one is listed in full next time (all of
        them after an overflow). Called once at the start of each manifest."""
        with self._lock:
            if self._fd is None:
                return
            changed: set[int] = set()
            while True:
                try:
                    data = os.read(self._fd, 65536)
                except BlockingIOError:
                    break
                except OSError:
                    self._close()  # a broken queue vouches for nothing
                    return
                offset = 0
                while offset + _EVENT.size <= len(data):
                    wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
                    offset += _EVENT.size + length
                    if mask & IN_Q_OVERFLOW:
                        self._listed.clear()
                        self._missing.clear()
                        self._epoch += 1
                        return
                    changed.add(wd)
                    self._events[wd] = self._events.get(wd, 0) + 1
            if changed:
                for folder in [f for f, seen in self._listed.items() if seen.wd in changed]:
                    del self._listed[folder]
                for folder in [f for f, gone in self._missing.items() if gone.wd in changed]:
                    del self._missing[folder]

    def listed(self, folder: str) -> Listed | None:
        """The folder as last listed, when nothing changed in it since (one ``stat``)."""
        with self._lock:
            seen = self._listed.get(folder)
        if seen is None:
            return None
        try:
            st = os.stat(folder)
        except OSError:
            return None
        if (st.st_dev, st.st_ino) != seen.identity:
            return None
        self.reused += 1
        return seen

    def missing(self, folder: str, anchors: dict[str, bool]) -> bool:
        """Whether ``folder`` is known still missing (nothing changed in its anchor since it
        was found missing). ``anchors``: the anchors this manifest checked already (one
        ``stat`` each per manifest)."""
        with self._lock:
            gone = self._missing.get(folder)
        if gone is None:
            return False
        same = anchors.get(gone.anchor)
        if same is None:
            try:
                st = os.stat(gone.anchor)
            except OSError:
                st = None
            same = st is not None and (st.st_dev, st.st_ino) == gone.identity
            anchors[gone.anchor] = same
        if same:
            self.still_missing += 1
        return same

    def note_missing(self, folder: str) -> None:
        """``folder`` was just found missing: remember so, watched through its anchor, when
        that can be vouched for (module docstring)."""
        top = folder
        while True:
            try:
                os.lstat(top)
                return  # a name is there (a dangling link, a file in the way): list each time
            except FileNotFoundError:
                pass
            except OSError:
                return
            anchor = os.path.dirname(top)
            if anchor == top:
                return
            try:
                st = os.stat(anchor)
            except FileNotFoundError:
                top = anchor
                continue
            except OSError:
                return
            if not stat.S_ISDIR(st.st_mode):
                return
            break
        watched = self.watch(anchor)
        if watched is None:
            return
        wd, identity, mark = watched
        try:
            os.lstat(top)  # after the watch: created since, it raised an event we may miss
            return
        except FileNotFoundError:
            pass
        except OSError:
            return
        with self._lock:
            if self._fd is not None and mark == (self._epoch, self._events.get(wd, 0)):
                self._missing[folder] = Missing(anchor, wd, identity)

    def watch(self, folder: str) -> Watched | None:
        """Watch ``folder`` before it is listed; its watch, identity and mark, or None when no
        listing of it can be vouched for (no inotify, not a local file system, replaced while
        the watch was added)."""
        with self._lock:
            fd = self._inotify()
            if fd is None:
                return None
            try:
                before = os.stat(folder)
            except OSError:
                return None
            identity = (before.st_dev, before.st_ino)
            if not self._is_local(folder, identity):
                return None
            wd = self._libc.inotify_add_watch(fd, os.fsencode(folder), WATCHED)
            if wd < 0:  # the watch limit, a folder gone meanwhile…
                return None
            try:
                after = os.stat(folder)
            except OSError:
                return None
            if (after.st_dev, after.st_ino) != identity:
                return None
            return wd, identity, (self._epoch, self._events.get(wd, 0))

    def remember(self, folder: str, listed: Listed, mark: tuple[int, int]) -> None:
        """Keep ``folder``'s listing, made after ``watch`` returned ``mark``, unless an event
        of its folder was read since (the listing may predate that change)."""
        with self._lock:
            if self._fd is not None and mark == (self._epoch, self._events.get(listed.wd, 0)):
                self._listed[folder] = listed

    def _is_local(self, folder: str, identity: tuple[int, int]) -> bool:
        known = self._local.get(identity)
        if known is None:
            import ctypes

            buffer = ctypes.create_string_buffer(256)  # struct statfs: 120 bytes on x86-64
            if self._libc.statfs(os.fsencode(folder), buffer) != 0:
                return False
            magic = ctypes.c_long.from_buffer(buffer).value & 0xFFFFFFFF  # f_type comes first
            known = self._local[identity] = magic in LOCAL_FILE_SYSTEMS
        return known

    def _close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
        self._fd = None
        self._listed.clear()
        self._missing.clear()
        self._local.clear()
        self._events.clear()
        self._epoch += 1

    def close(self) -> None:
        """Stop watching (a later manifest starts again, listing every folder once)."""
        with self._lock:
            self._close()


_SHARED: list[QuietFolders] = []
_SHARED_LOCK = threading.Lock()


def shared_quiet_folders() -> QuietFolders:
    """The process's one ``QuietFolders`` (every service of the daemon): one inotify instance,
    the folders of every project in it. A service's catch-up that reads the events forgets the
    folders of the others too, in the one ``listed`` they share."""
    with _SHARED_LOCK:
        if not _SHARED:
            _SHARED.append(QuietFolders())
        return _SHARED[0]
