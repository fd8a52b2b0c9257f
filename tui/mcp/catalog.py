"""The tools the server offers: names, descriptions written for a model, and input schemas.

Plain data (no SDK import): the server turns each entry into the SDK's ``Tool``; tests read
the same entries. Descriptions say what the tool is for, when to use it, and the query syntax
in two lines; schemas bound every number so a model's typo is refused before it costs anything.
"""

from __future__ import annotations

from typing import Any

from engine.kinds import ALL_KINDS

MAX_ROWS = 100
"""Most rows one ``search`` or ``list_sessions`` answer holds: more would only be cut by the
answer cap; ``offset`` pages on."""

MAX_OFFSET = 400
"""Deepest ``offset``: the service ranks at most 500 hits a page (``engine.kinds.MAX_LIMIT``),
and offset plus limit is asked of it as one page."""

MAX_CONTEXT = 50
"""Most lines (chat: messages) ``open`` shows on each side of its anchor; the window cap cuts
long ones anyway."""

QUERY_SYNTAX = (
    "Query syntax: terms are AND-ed prefixes (timeout finds connectTimeout), "
    '"exact phrase", -exclude, either|or; '
    "filters kind:chat|terminal|pr|commit|branch|lane|file|artifact, lane:<id>, "
    "session:<id>, tool:claude|codex|gemini|…, since:/until: 30m|24h|7d|2w|2026-06-01; "
    "shell commands (ade term): exit:0|2|fail, cwd:<folder>, took:5s|<1s|1s..1m."
)

_SINCE = {
    "type": "string",
    "description": "Only what happened since then: 30m, 24h, 7d, 2w or a date like 2026-06-01.",
}

SEARCH: dict[str, Any] = {
    "name": "search",
    "title": "Search project history",
    "description": (
        "Search everything this project's agents and people did: agent chats (every agent), "
        "terminal scrollback, pull requests, commits, branches, lanes (git worktrees), file "
        "lines and artifacts. Use it before answering from memory about earlier work: a past "
        "decision, an error seen before, which session or commit changed something. Each row "
        "has an ade:// link; pass it to `open` for the text around it.\n" + QUERY_SYNTAX
    ),
    "inputSchema": {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "Terms, phrases and filters (see the syntax above); "
                "filters alone list the newest matches.",
            },
            "kinds": {
                "type": "array",
                "items": {"type": "string", "enum": [*ALL_KINDS, "issue"]},
                "description": "Only these kinds (default: all but linear).",
            },
            "lane": {"type": "string", "description": "Only this lane: id, name or branch."},
            "since": _SINCE,
            "until": {
                "type": "string",
                "description": "Only what happened until then (a date includes that day).",
            },
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_ROWS, "default": 20},
            "offset": {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_OFFSET,
                "default": 0,
                "description": "Rows to skip (the next page: offset + limit).",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    },
}

OPEN: dict[str, Any] = {
    "name": "open",
    "title": "Open a search hit",
    "description": (
        "Read the text around an ade:// link from `search` or `list_sessions`: the chat "
        "messages around a message, the scrollback lines around a terminal offset, the file "
        "lines around a line, or a PR, commit, branch, lane or artifact. The window is bounded "
        "and says what it left out; widen it with `context`."
    ),
    "inputSchema": {
        "type": "object",
        "properties": {
            "link": {"type": "string", "description": "An ade:// link exactly as given."},
            "context": {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_CONTEXT,
                "description": "Lines (chat: messages) on each side "
                "(default: chat 2, terminal and file 10).",
            },
        },
        "required": ["link"],
        "additionalProperties": False,
    },
}

LIST_SESSIONS: dict[str, Any] = {
    "name": "list_sessions",
    "title": "List sessions",
    "description": (
        "List the project's chat and terminal sessions, newest activity first: title, agent, "
        "lane, message count, last activity and a link. Use it to find which session worked "
        "on something recently, then `search` with session:<id> or `open` its link."
    ),
    "inputSchema": {
        "type": "object",
        "properties": {
            "agent": {
                "type": "string",
                "description": "Only sessions of this agent: claude, codex, gemini, opencode, "
                "copilot, aider, or shell for terminals.",
            },
            "lane": {"type": "string", "description": "Only this lane: id or name."},
            "since": _SINCE,
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_ROWS, "default": 20},
        },
        "additionalProperties": False,
    },
}

STATUS: dict[str, Any] = {
    "name": "status",
    "title": "Index status",
    "description": (
        "What the search index holds: documents per kind, sessions per agent, where each "
        "agent's transcripts were found, and warnings (skipped lines, history still indexing). "
        "Use it when a search finds less than expected."
    ),
    "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
}

TOOLS: tuple[dict[str, Any], ...] = (SEARCH, OPEN, LIST_SESSIONS, STATUS)
"""Every tool, in the order ``tools/list`` gives them."""

INSTRUCTIONS = (
    "ade indexes this project's history: agent chats, terminal scrollback, PRs, commits, "
    "branches and files. Search it before answering from memory about earlier work, then open "
    "the links you need. Read-only."
)
"""The server's instructions, shown by clients that pass them to the model."""
