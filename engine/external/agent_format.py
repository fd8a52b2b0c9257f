"""The agent seam: what ade needs to know about one agent's sessions (docs/agents.md).

Each agent is one module (``engine.external.claude_code``, ``codex``, ``gemini``…) holding an
``AgentFormat`` named ``FORMAT`` and one line in ``engine.agent_table`` (its home, the variable
that moves it, its session folders). Everything else reads the format through
``engine.external.registry``: discovery (``sessions``: the sessions whose working folder is in
the project or one of its lanes), the watcher (``watch_roots``, ``lane_roots``, ``lane_files``,
``owner_hint``), the ingester (``parse`` for a tailed transcript, ``derived_events`` and
``signature`` for a store read whole), ``ade open`` (``owns``, ``sniff``, ``sources``), ``ade
resume`` (``resume_argv``, ``recorded_cwd``) and ``--status``.

Events come out as ``ChatEvent`` with a role: ``user_message``, ``assistant_message``,
``tool_call`` (``name``, ``input``), ``tool_result`` (``output``); thinking and reasoning never
come out, and neither does text the agent injected itself (``hidden`` says what). Every line,
event or file a reader skips is counted in the ``WarningTally`` it is given, under the source key
with a reason (``no id``, ``unknown type``, ``bad json``…): nothing is dropped silently.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

from engine.agent_table import AgentEntry, entry
from engine.external.heads import HeadCache
from engine.external.roots import agent_folders, agent_home
from engine.project.json_salvage import salvage_cut_line
from engine.project.model import ChatEvent, Lane, SessionMeta
from engine.project.safe_io import Bounds
from engine.project.stat import stat_signature
from engine.project.tally import WarningTally

TRUNCATED_MARK = " [… truncated]"
"""``engine.ingest.docs.TRUNCATED_MARK`` (not imported: discovery stays free of the indexer)."""

Hint = Literal["relist", "if-unseen", "foreign"]
"""What a change to a file under an agent's folder means when no listed session owns it:
``relist`` (it may be a new session of ours), ``if-unseen`` (re-list unless its head was read
already and named a working folder: a file's cwd never changes), ``foreign`` (not ours)."""

Source = tuple[str, Path, int]
"""``(source key, file, seq base)`` of one transcript file of a session."""

Parsed = tuple[list[ChatEvent], int, dict[str, Any]]
"""The events of the complete records of appended bytes, the bytes consumed and the state to
carry to the next pass (stored with the file's cursor)."""


class AgentFormat:
    """One agent's session store. Subclasses set the class attributes and override what their
    store needs; the defaults fit an agent with one append-only transcript file per session."""

    name: ClassVar[str] = ""
    """The agent's name in ``engine.agent_table`` (the ``tool:`` value, the id prefix)."""

    derived: ClassVar[bool] = False
    """True for a store that is rewritten, not appended (a file whose messages are replaced, a
    database): a session is re-derived whole (``derived_events``) when ``signature`` changes.
    False: each transcript file is tailed (``parse`` over the bytes appended since last time)."""

    remembered: ClassVar[bool] = False
    """Sessions found once are remembered while their file exists, though a later run's
    environment points elsewhere (one transcript file per session: Claude Code, Codex)."""

    resume: ClassVar[tuple[str, ...] | None] = None
    """The command before the session id that resumes it in the agent (``("claude",
    "--resume")``); None when the agent cannot resume a session by id."""

    no_resume: ClassVar[str] = ""
    """Why it cannot (shown by ``ade resume``), when ``resume`` is None."""

    folder_label: ClassVar[str] = ""
    """How a refusal names the agent's folder (``the Codex sessions folder``)."""

    hidden: ClassVar[str] = "thinking and reasoning"
    """What is read but never indexed nor shown (docs/agents.md)."""

    @property
    def entry(self) -> AgentEntry:
        """The agent's line in ``engine.agent_table``."""
        return entry(self.name)

    @property
    def label(self) -> str:
        """The agent's display name (``Claude Code``)."""
        return self.entry.label

    def home(self, environ: Mapping[str, str]) -> Path:
        """The agent's home in ``environ`` (its variable, else its default under ``HOME``)."""
        return agent_home(self.name, environ)

    def session_folders(self, environ: Mapping[str, str]) -> list[Path]:
        """The folders holding the agent's sessions in ``environ`` (``--status`` names them)."""
        return agent_folders(self.name, environ)

    session_globs: ClassVar[tuple[str, ...]] = ()
    """Globs, under each session folder, of the files holding one session each: ``--status``
    counts them as the sessions found (``count_sessions``)."""

    def searched(self, environ: Mapping[str, str], lanes: Sequence[Lane]) -> list[Path]:
        """Where ``--status`` says the agent was searched: its session folders."""
        del lanes
        return self.session_folders(environ)

    def count_sessions(self, environ: Mapping[str, str], lanes: Sequence[Lane]) -> int:
        """How many sessions the agent keeps where it was searched, whichever project they
        belong to (``--status``). Default: the files matching ``session_globs``."""
        del lanes
        count = 0
        for folder in self.session_folders(environ):
            for pattern in self.session_globs:
                try:
                    count += sum(1 for _ in folder.glob(pattern))
                except OSError:
                    continue
        return count

    def watch_roots(self, environ: Mapping[str, str]) -> list[Path]:
        """The folders the watcher follows, whether they exist yet or not."""
        return self.session_folders(environ)

    def lane_roots(self, lanes: Sequence[Lane], environ: Mapping[str, str]) -> list[Path]:
        """Folders of the agent's store inside the lanes (or named by them), followed whole
        like ``watch_roots``, whether they exist yet or not: Crush's ``.crush``. Default: none."""
        del lanes, environ
        return []

    def lane_files(self, lanes: Sequence[Lane], environ: Mapping[str, str]) -> list[Path]:
        """Files the agent writes straight into a folder too big to follow whole (a lane's
        root): that folder is followed alone, not its subfolders (Aider's history). Default:
        none."""
        del lanes, environ
        return []

    def bounds(self, environ: Mapping[str, str], lanes: Sequence[Lane] = ()) -> Bounds:
        """Where a session file may really live: a transcript symlinked out of the agent's
        folders (to ``~/.ssh/id_rsa``) is refused like an ``.ade`` file linked out of the project."""
        del lanes
        label = self.folder_label or f"the {self.label} sessions folder"
        return Bounds(self.session_folders(environ), label=label)

    # --- finding sessions ---------------------------------------------------------------------
    def sessions(
        self, lanes: list[Lane], tally: WarningTally, environ: Mapping[str, str], heads: HeadCache
    ) -> list[SessionMeta]:
        """Every session whose working folder is in one of ``lanes`` (a subfolder included), as
        a chat ``SessionMeta`` whose ``source`` and ``tool`` are ``name``. A file or record
        refused or without a working folder is counted in ``tally`` under ``name``."""
        raise NotImplementedError

    def lane_memo(self, lanes: list[Lane], environ: Mapping[str, str], heads: HeadCache) -> object:
        """What ``owner_hint`` needs to know about the lanes, computed on each listing."""
        del lanes, environ, heads
        return None

    def owner_hint(self, path: Path, environ: Mapping[str, str], memo: object) -> Hint | None:
        """What a change to ``path`` (owned by no listed session) means; None when ``path`` is
        outside this agent's folders. Default: a new transcript, unless its head is known."""
        del memo
        if any(folder in path.parents for folder in self.watch_roots(environ)):
            return "if-unseen"
        return None

    # --- reading sessions ---------------------------------------------------------------------
    def owns(self, path: Path, environ: Mapping[str, str]) -> bool:
        """True when ``path`` is one of this agent's transcripts in ``environ`` (``ade open``)."""
        return any(folder in path.parents for folder in self.session_folders(environ))

    def sniff(self, first: dict[str, Any]) -> bool:
        """True when ``first`` (a JSON line of a transcript found elsewhere) is this agent's."""
        del first
        return False

    def sources(self, meta: SessionMeta) -> list[Source]:
        """Every transcript file of the session: the main one is ``chat:<sid>``."""
        if meta.transcript_path is None:
            return []
        return [(f"chat:{meta.id}", meta.transcript_path, 0)]

    def view_files(self, path: Path) -> list[tuple[Path, int]]:
        """The files ``ade open`` reads for the transcript at ``path``, with their seq bases."""
        return [(path, 0)]

    def parse(
        self, data: bytes, base: int, source: str, tally: WarningTally, state: dict[str, Any],
        seq_base: int = 0,
    ) -> Parsed:  # fmt: skip
        """The events of the complete records of ``data`` (starting at byte ``base`` of the
        file), for a tailed agent. ``state``: what the previous pass carried."""
        raise NotImplementedError

    def mark_cut_line(self, line: bytes) -> bytes:
        """A record cut at the read cap, made readable (JSON: closed, marked truncated)."""
        return salvage_cut_line(line, TRUNCATED_MARK)

    def derived_file(self, path: Path | None) -> bool:
        """True when the session at ``path`` is re-derived whole, not tailed: ``derived``,
        unless the format holds both kinds (Codex's legacy one-document rollouts)."""
        del path
        return self.derived

    def derived_events(
        self, path: Path, tally: WarningTally, source: str
    ) -> tuple[list[ChatEvent] | None, int]:
        """For a derived agent: every visible event of the session at ``path`` and how many
        records were cut at the read cap; ``(None, 0)`` when it cannot be parsed now."""
        raise NotImplementedError

    def signature(self, meta: SessionMeta) -> str:
        """What changes whenever the session does (default: its files' stats)."""
        return stat_signature([path for _, path, _ in self.sources(meta)])

    # --- resuming -----------------------------------------------------------------------------
    def native_id(self, meta: SessionMeta) -> str:
        """The id the agent itself knows the session by."""
        return meta.id.removeprefix(f"{self.name}-")

    def resume_argv(self, meta: SessionMeta) -> tuple[str, ...] | None:
        """The command that resumes the session in the agent (None: it cannot)."""
        return None if self.resume is None else (*self.resume, self.native_id(meta))

    def recorded_cwd(self, meta: SessionMeta) -> Path | None:
        """The folder the session was started in, as its store says (None: unknown)."""
        del meta
        return None

    def named_folders(self, environ: Mapping[str, str], limit: int) -> list[str]:
        """The working folders the agent's sessions on this machine were started in, from its
        ``limit`` newest sessions (``engine.machine.known``: a project named only by this agent
        is known from anywhere, so its links open there). None known: an empty list."""
        del environ, limit
        return []
