"""The engine modules ``tui/`` may import, and why (ARCHITECTURE.md, import rules).

Front ends talk to the engine through the client interface (DESIGN §1): they never open the
index, run git or read transcripts themselves. Every engine module a ``tui`` file imports —
module-level, inside a function or under ``TYPE_CHECKING`` — must be listed here with its
reason; anything else fails the test, naming the file and line.
"""

from __future__ import annotations

from tests.architecture.imports import imports_of

ALLOWED: dict[str, str] = {
    # The interface, its records, its errors.
    "engine": "the package itself, for __version__ (ade --version)",
    "engine.client": "the client interface every front end talks through",
    "engine.types": "the wire types of the interface (query args, results, status, explanations)",
    "engine.kinds": "the result kinds and the page limit (`ade search` validates its flags "
    "without the wire types, the start-up budget)",
    "engine.errors": "the errors the interface raises (usage → exit 2, project, deep link)",
    "engine.project.model": "the records the interface returns (Project, Lane, SessionMeta, "
    "ChatEvent)",
    # Choosing and opening a client.
    "engine.embedded": "the in-process implementation of the interface (opened when no daemon "
    "answers; then used only through the interface)",
    "engine.rpc.client": "the daemon's implementation of the interface (connect_daemon), and the "
    "raw connection `ade daemon status/stop` greet the daemon with",
    "engine.rpc.connection": "the bare greeted socket: `ade search` forwards a query to a "
    "running daemon with nothing of the engine imported (the start-up budget)",
    "engine.search_cli": "the daemon's `search.cli` request as its renderer (tui.search_answer, "
    "loaded by the daemon the front end starts) reads it: a whole `ade search` answered there",
    "engine.rpc.autostart": "starting the daemon for the next search once `ade search` has "
    "answered without one (the start-up budget)",
    "engine.rpc.roles": "`ade search --rebuild` refuses in an agent's shell before asking anyone: "
    "the CTO role's rule, kept beside the daemon's",
    "engine.project.plain_repo": "whether a folder is a plain main worktree, without git: "
    "`ade search` names the root a daemon answers for (the start-up budget)",
    "engine.project.locate": "which folder is the project (--project, else the cwd's git top "
    "level): a front end decides what it opens",
    "engine.project.lane_memo": "one lane listing per command: the CLI marks where one command "
    "(catch-up + query) starts and ends",
    "engine.rpc.project_marker": "whether a folder is a project at all: `ade search` refuses / or "
    "/etc before opening anything (exit 2)",
    "engine.basics.text": "pure text hygiene: argv's undecodable bytes become U+FFFD before they are a "
    "query",
    "engine.terminal.sanitize": "the escape-sequence grammar the indexer strips: the output "
    "boundary (tui.printable) removes escapes with the same one",
    "engine.query.session_fold": "the one session-dedupe rule: the CLI folds a page's rows by "
    "it and `--explain` names each fold (pure, reads only the wire items)",
    "engine.query.cursor": "cursor_seen only: where a next page starts (`3–4 of 4`), read from "
    "the cursor the CLI itself passed (pure, no index)",
    "engine.redaction": "`ade mcp`: the same secret redaction the engine applies before it "
    "indexes, run again on every text an MCP answer carries (a model may log what it reads)",
    "engine.basics.clock": "the ADE_NOW clock, so ages are formatted with the service's own clock",
    # Links: parse, resolve, show.
    "engine.links.deeplink": "building and parsing ade:// links (pure)",
    "engine.links.resolve": "the one link resolver (ade open and the palette) and its target "
    "values",
    "engine.links.listings": "the project listings the resolver looks targets up in (ade open "
    "resolves without opening the index)",
    "engine.links.details": "the detail context of a resolved target: plain records and "
    "read-only readers shared by ade open, the preview pane and the screens",
    # Commands whose work is not search: each is a thin argparse shell over its engine entry.
    "engine.demo": "the demo builder behind `ade demo` and `ade palette --demo`",
    "engine.importers.github_prs": "`ade prs sync` (writes .ade/prs from gh)",
    "engine.importers.lane_choice": "`ade import` / `ade term`: which lane a recording joins",
    "engine.importers.recording": "`ade import` / `ade term`: the recording formats' errors/names",
    "engine.importers.terminal_import": "`ade import`: reading and writing a recording",
    "engine.importers.removal": "`ade import --remove`: deleting what an import wrote",
    "engine.importers.sidecar": "`ade import`: a recording's <file>.meta.json sidecar",
    "engine.external.resume": "`ade resume` / Ctrl+R: the command that resumes a chat in its own "
    "tool",
    "engine.project.git_exclude": "`ade term` / `ade import`: add .ade/ to .git/info/exclude when "
    "git does not ignore it (said once)",
    "engine.terminal.recorder": "`ade term`: the PTY recorder",
    "engine.terminal.shell_integration": "`ade term`: bash/zsh started with prompt marks",
    "engine.rpc.cli_args": "`ade daemon run`: the daemon's own options and entry point",
    "engine.rpc.paths": "`ade daemon` / project switch: where the socket and config live",
    "engine.rpc.registry": "`ade projects` / project switch: the registered projects",
    "engine.machine.everywhere": "`ade search` outside a project or with --all: one query over "
    "every known project, each through its own client (the same function the daemon runs)",
    "engine.machine.known": "`ade open` / `ade resume` of a hit found from anywhere: the known "
    "project a link's project= id names",
}


def test_tui_imports_only_the_allowed_engine_modules() -> None:
    wrong = sorted(
        f"{imp.where}: {imp.target}"
        for imp in imports_of("tui")
        if (imp.target == "engine" or imp.target.startswith("engine."))
        and imp.target not in ALLOWED
    )
    assert not wrong, "tui/ reaches past the client interface:\n" + "\n".join(wrong)


def test_every_allowed_module_is_still_used() -> None:
    # A stale entry would let a later import through unexamined.
    used = {imp.target for imp in imports_of("tui")}
    assert sorted(set(ALLOWED) - used) == []
