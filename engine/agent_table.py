"""The agents ade reads, one line each: the one registry (docs/agents.md).

Everything that names the agents reads this table: discovery and the watcher
(``engine.external.registry`` loads each agent's ``AgentFormat`` from ``module``), the warm-run
manifest and the caller's context (``folders`` and ``variable``, without importing any parser:
the start-up budget), ``--status``, the ``tool:`` filter, the help and the palette's
``chat: <agent>`` stops (``AGENT_NAMES``). A new agent is its module (an ``AgentFormat``
named ``FORMAT``), its fixtures under ``tests/fixtures/agents/<name>/`` and one line here.

Plain tuples and a plain class: this module is imported on every warm ``ade search``.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations


class Folder:
    """A folder under the agent's home that holds its sessions.

    ``path``: relative to the home (``sessions``); ``depth``: how many folder levels below it
    the warm-run manifest lists (``0``: its own entries); ``per_lane``: only the entries named
    after the project's lanes are listed (Claude Code's ``projects/<slug>`` folders).
    """

    __slots__ = ("depth", "path", "per_lane")

    def __init__(self, path: str, depth: int = 0, *, per_lane: bool = False) -> None:
        self.path = path
        self.depth = depth
        self.per_lane = per_lane


class AgentEntry:
    """One agent: its name (the ``tool:`` value and the session id prefix), its label, the
    module holding its ``FORMAT``, its home (``variable`` when set, else ``default`` under
    ``HOME``), the folders under that home holding sessions, the files it keeps in each
    lane instead (Aider), and the agent's other variables that each name a folder it reads
    (``also``: Crush's ``CRUSH_GLOBAL_DATA``, read by its module; the warm-run manifest stats
    the folder too).

    A VS Code extension or fork (``editors``: the VS Code products whose user data it is read
    from) has its folders under each product's user data folder rather than under one home
    (``engine.external.roots.vscode_user_data``); ``portable``: a portable install's user data
    (``$VSCODE_PORTABLE/user-data``) is read too, first; ``setting``: ``(key, storage)``, a
    VS Code user setting that moves the extension's storage (the folder ``storage``, under a
    user data folder) elsewhere (Roo Code's ``customStoragePath``): its folders there are read
    too (``engine.external.vscode_settings``)."""

    __slots__ = (
        "also", "default", "editors", "folders", "label", "lane_files", "module", "name",
        "portable", "setting", "variable",
    )  # fmt: skip

    def __init__(
        self,
        name: str,
        label: str,
        module: str,
        variable: str | None,
        default: str,
        folders: tuple[Folder, ...] = (),
        lane_files: tuple[str, ...] = (),
        also: tuple[str, ...] = (),
        editors: tuple[str, ...] = (),
        *,
        portable: bool = False,
        setting: tuple[str, str] | None = None,
    ) -> None:
        self.name = name
        self.label = label
        self.module = module
        self.variable = variable
        self.default = default
        self.folders = folders
        self.lane_files = lane_files
        self.also = also
        self.editors = editors
        self.portable = portable
        self.setting = setting


AIDER_HISTORY_FILE = ".aider.chat.history.md"
"""Aider's chat history, beside the repository it ran in (``engine.external.aider``)."""

EDITORS = ("Code", "Code - Insiders", "Code - OSS", "VSCodium", "Cursor", "Windsurf")
"""The VS Code products whose user data (``$VSCODE_APPDATA/<product>``, by default in the
platform's application data folder) holds the extensions' storage (``engine.external.vscode_tasks``).
Each is the product's ``nameShort``, which VS Code names its user data folder after (``src/main.ts``:
``getUserDataPath(args, product.nameShort)``): ``Code - OSS`` is the open-source build's
(microsoft/vscode ``product.json``), the others the products' own (docs/agents.md)."""

PORTABLE = "VSCODE_PORTABLE"
"""A portable VS Code's data folder; its user data is ``<it>/user-data`` (``userDataPath.ts``)."""

VSCODE_APPDATA = "VSCODE_APPDATA"
"""Moves every VS Code product's user data to ``$VSCODE_APPDATA/<product>``."""


def storage(extension: str) -> str:
    """An extension's global storage folder, under a user data folder."""
    return f"User/globalStorage/{extension}"


def in_storage(extension: str, *folders: tuple[str, int]) -> tuple[Folder, ...]:
    """The folders ``(path, depth)`` of an extension's global storage, under a user data folder."""
    return tuple(Folder(f"{storage(extension)}/{path}", depth) for path, depth in folders)


ROO = "rooveterinaryinc.roo-cline"


CRUSH_DB = ".crush/crush.db"
"""Crush's database in the project folder it ran in (``engine.external.crush``)."""

AGENTS: tuple[AgentEntry, ...] = (
    AgentEntry("claude", "Claude Code", "engine.external.claude_code", "CLAUDE_CONFIG_DIR",
               ".claude", (Folder("projects", per_lane=True),)),
    AgentEntry("codex", "Codex", "engine.external.codex", "CODEX_HOME", ".codex",
               (Folder("sessions", 3), Folder("archived_sessions", 0))),
    AgentEntry("gemini", "Gemini CLI", "engine.external.gemini", "GEMINI_CLI_HOME", "",
               (Folder(".gemini/tmp", 3),)),
    AgentEntry("opencode", "OpenCode", "engine.external.opencode", "XDG_DATA_HOME",
               ".local/share", (Folder("opencode", 0),)),
    AgentEntry("copilot", "Copilot CLI", "engine.external.copilot", "COPILOT_HOME", ".copilot",
               (Folder("session-state", 1),)),
    AgentEntry("aider", "Aider", "engine.external.aider", None, "",
               lane_files=(AIDER_HISTORY_FILE,)),
    AgentEntry("qwen", "Qwen Code", "engine.external.qwen", "QWEN_RUNTIME_DIR", ".qwen",
               (Folder("projects", 2),)),
    AgentEntry("pi", "pi", "engine.external.pi", "PI_CODING_AGENT_DIR", ".pi/agent",
               (Folder("sessions", 1),)),
    AgentEntry("openclaw", "OpenClaw", "engine.external.openclaw", "OPENCLAW_STATE_DIR",
               ".openclaw", (Folder("agents", 2),)),
    AgentEntry("goose", "Goose", "engine.external.goose", "GOOSE_PATH_ROOT",
               ".local/share/goose", (Folder("sessions", 0),)),
    AgentEntry("vibe", "Mistral Vibe", "engine.external.vibe", "VIBE_HOME", ".vibe",
               (Folder("logs/session", 3),)),  # Vibe 3: unified/<id>/journal/
    AgentEntry("cursor", "Cursor agent CLI", "engine.external.cursor", None, ".cursor",
               (Folder("projects", 3),)),
    AgentEntry("grok", "Grok Build", "engine.external.grok", "GROK_HOME", ".grok",
               (Folder("sessions", 2),)),
    AgentEntry("amp", "Amp", "engine.external.amp", "XDG_DATA_HOME", ".local/share",
               (Folder("amp/threads", 0),)),
    AgentEntry("droid", "Factory Droid", "engine.external.droid", None, ".factory",
               (Folder("sessions", 1),)),
    AgentEntry("kiro", "Kiro CLI", "engine.external.kiro", "KIRO_HOME", ".kiro",
               (Folder("sessions/cli", 0),)),
    AgentEntry("iflow", "iFlow CLI", "engine.external.iflow", None, ".iflow",
               (Folder("projects", 1),)),
    AgentEntry("crush", "Crush", "engine.external.crush", "XDG_DATA_HOME", ".local/share",
               (Folder("crush", 0),), lane_files=(CRUSH_DB, f"{CRUSH_DB}-wal"),
               also=("CRUSH_GLOBAL_DATA",)),
    AgentEntry("cline", "Cline", "engine.external.cline", VSCODE_APPDATA, ".config",
               in_storage("saoudrizwan.claude-dev", ("tasks", 1), ("state", 0)),
               editors=EDITORS, portable=True),
    AgentEntry("cline-cli", "Cline CLI", "engine.external.cline_cli", "CLINE_DIR", ".cline",
               (Folder("data/sessions", 1),), also=("CLINE_DATA_DIR", "CLINE_SESSION_DATA_DIR")),
    AgentEntry("roo", "Roo Code", "engine.external.roo", VSCODE_APPDATA, ".config",
               in_storage(ROO, ("tasks", 1)), editors=EDITORS, portable=True,
               setting=("roo-cline.customStoragePath", storage(ROO))),
    AgentEntry("cursor-ide", "Cursor editor", "engine.external.cursor_ide", VSCODE_APPDATA,
               ".config", (Folder("User/globalStorage", 0), Folder("User/workspaceStorage", 1)),
               editors=("Cursor",)),
)  # fmt: skip
"""Every agent read, in the order ``--status``, the help and the palette list them."""

AGENT_NAMES: tuple[str, ...] = tuple(entry.name for entry in AGENTS)
"""The ``tool:`` values (a chat's ``tool`` is one of these)."""

AGENT_VARIABLES: tuple[str, ...] = tuple(
    dict.fromkeys(
        v
        for e in AGENTS
        for v in (e.variable, *e.also, PORTABLE if e.portable else None)
        if v is not None
    )
)
"""The variables that move an agent's home (besides ``HOME``): the caller's context carries
them (``engine.basics.caller_env.AGENT_FOLDERS``)."""


def entry(name: str) -> AgentEntry:
    """The table line of agent ``name``.

    Raises:
        KeyError: no such agent.
    """
    for found in AGENTS:
        if found.name == name:
            return found
    raise KeyError(name)
