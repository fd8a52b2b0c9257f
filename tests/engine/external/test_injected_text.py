"""Text an agent injected is not the user's words: one row per agent and injected text.

Each row writes one session in the agent's own shape (tests/fixtures/agents/<agent>/README.md
names where each shape comes from): a first user message with the user's words, then a message
holding the injected text — beside the user's words in one message where the agent writes it so.
Then, through the real index: a plain search never finds the injected word, ``role:system`` finds
it exactly when the agent's module keeps it (``system``) and never when it hides it, the
session's title is the user's words, the viewer shows it as ``system (…)`` and never as
``user``. The CLI rows run on both paths (in process and through the daemon).

Where the injected shapes come from:
- Codex: openai/codex ``codex-rs/core/src/contextual_user_message.rs``
  (``CONTEXTUAL_USER_FRAGMENTS``: AGENTS.md, ``<environment_context>``, ``<skill>``,
  ``<user_shell_command>``, ``<turn_aborted>``, ``<subagent_notification>``,
  ``<additional_context>``, each matched per content item, case folded); ``<user_instructions>``
  from its older releases, ``<recommended_plugins>`` from sessions it wrote.
- Claude Code (closed source): the sessions it writes, as its users quote them on
  anthropics/claude-code (the compaction summary's "This session is being continued from a
  previous conversation", a line flagged ``isCompactSummary``: its feature requests to view or
  export the compaction summary, its reports of compaction on exit) and
  as session readers match them (``<local-command-caveat>``, ``<local-command-stdout>``,
  ``<task-notification>``, "Stop hook feedback", ``<system-reminder>``, ``<ide_opened_file>``,
  ``<ide_selection>``, ``<command-name>``, ``<bash-input>``).
- Copilot CLI (closed source): ``<skill-context name=…>`` in a ``user.message``'s content, with
  or without ``source: skill-*``, as sessions it wrote hold it.
- Cursor agent CLI (closed source): transcripts it wrote, as public readers quote and parse them
  (``<user_query>`` framing the typed words; ``<user_info>``, ``<attached_files>``,
  ``<cursor_commands>``, ``<system_reminder>`` beside it in the same text block).
- Grok Build: xai-org/grok-build ``crates/common/xai-interjection-core/src/format.rs``
  (``user_query``, ``frame_user_turn``: a query with skill or context tails and notes) and
  ``crates/codegen/xai-grok-sampling-types/src/conversation.rs`` (``SyntheticReason``).
- iFlow CLI (bundle only): the user-form injections its sessions hold (``# AGENTS.md
  instructions for`` with ``<INSTRUCTIONS>``, ``<local-command-caveat>``, ``<system-reminder>``).
- Factory Droid (closed source): ``<system-reminder>`` text blocks in a user turn, as sessions it
  wrote hold them.
- Amp (closed source): nothing of its own in a user message's text in the threads quoted
  (file mentions and thinking are blocks of their own): its row shows the text stays the user's.
- pi: badlogic/pi-mono ``packages/coding-agent/src/core/agent-session.ts``
  (``_expandSkillCommand``: ``<skill name=… location=…>``) and ``src/cli/file-processor.ts``
  (``processFileArguments``: ``<file name=…>``).
- OpenClaw: openclaw/openclaw ``src/auto-reply/reply/inbound-meta.ts``
  (``buildInboundUserContextPrefix``) and ``src/auto-reply/reply/session-updates.ts``
  (``prependSystemEvents``: ``System:`` lines).
- Mistral Vibe: mistralai/mistral-vibe ``vibe/core/agent_loop.py`` (``injected=True`` messages,
  ``<vibe_warning>``) and ``vibe/core/autocompletion/path_prompt_adapter.py`` (an ``@`` file's
  URI and fenced contents after the prompt).
- Qwen Code: QwenLM/qwen-code ``packages/cli/src/ui/hooks/atCommandProcessor.ts`` (the typed
  text first, then a part per file, extension and resource) and
  ``packages/core/src/services/chatRecordingService.ts`` (``displayText``, ``recordNotification``).
- Kiro CLI (closed source): the ``--- CONTEXT ENTRY ---`` / ``--- USER MESSAGE ---`` frame its
  requests carry, as proxies capturing them record it.
- Goose: block/goose ``crates/goose/src/conversation/message.rs`` (``userVisible``/``agentVisible``
  metadata: what only the model sees) and ``crates/goose/src/agents/moim.rs`` (its per-turn
  context is never stored).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import search_argv

from engine.agent_table import AGENTS
from engine.external.view import read_external_events
from engine.ingest.timers import ManualTimerFactory
from engine.links.details import chat_context
from engine.project.locate import open_project
from engine.types import SearchQueryArgs
from engine.wiring import create_project_service
from tests.engine.external.injected_shapes import USER_WORDS, WRITERS, claude
from tui.cli import main

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)

# (agent, injected parts, flags, the injected word, system | hide, label shown)
ROWS: list[tuple[str, list[str], dict[str, Any], str, str, str]] = [
    ("claude", ["This session is being continued from a previous conversation that ran out of"
                " context. Summary: the wombatsummary work"], {"isCompactSummary": True},
     "wombatsummary", "system", "compaction summary"),
    ("claude", ["Summary without the usual opening: quokkasummary"], {"isCompactSummary": True},
     "quokkasummary", "system", "compaction summary"),
    ("claude", ["[Request interrupted by user for tool use]"], {}, "interrupted", "system",
     "interruption"),
    ("claude", ["<local-command-caveat>Caveat: The messages below were generated by the user while"
                " running local commands. DO NOT respond to these messages or otherwise consider"
                " them in your response unless the user explicitly asks you to. caveatbadger"
                "</local-command-caveat>"], {}, "caveatbadger", "hide", ""),
    ("claude", ["<local-command-stdout>Set model to ocelotmodel</local-command-stdout>"], {},
     "ocelotmodel", "system", "command output"),
    ("claude", ["<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n"
                "<summary>Background command finished: lemurtask</summary>\n</task-notification>"],
     {}, "lemurtask", "system", "task notification"),
    ("claude", ["Stop hook feedback:\n- [make lint]: tapirlint failed"], {}, "tapirlint",
     "system", "hook feedback"),
    ("claude", ["<ide_opened_file>The user opened the file /src/narwhalfile.py in the IDE. This"
                " may or may not be related to the current task.</ide_opened_file>", USER_WORDS],
     {}, "narwhalfile", "system", "IDE open file"),
    ("claude", ["<ide_selection>The user selected the lines 3 to 4 from /src/a.py:\nokapiselect()"
                "\n\nThis may or may not be related to the current task.</ide_selection>",
                USER_WORDS], {}, "okapiselect", "system", "IDE selection"),
    ("claude", ["<system-reminder>The todo list is empty: pangolinreminder</system-reminder>"],
     {}, "pangolinreminder", "system", "reminder"),
    ("codex", ["# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nUse gerbilrules always.\n"
               "</INSTRUCTIONS>"], {}, "gerbilrules", "hide", ""),
    ("codex", ["<environment_context>\n  <cwd>/repo/hamsterenv</cwd>\n  <shell>zsh</shell>\n"
               "</environment_context>"], {}, "hamsterenv", "hide", ""),
    ("codex", ["<recommended_plugins>\n- chinchillaplugin\n</recommended_plugins>"], {},
     "chinchillaplugin", "hide", ""),
    ("codex", ["<user_instructions>\nprefer capybararules\n</user_instructions>"], {},
     "capybararules", "hide", ""),
    ("codex", ["<turn_aborted>\nThe user interrupted the previous turn on purpose: "
               "ferretabort\n</turn_aborted>"], {}, "ferretabort", "system", "interruption"),
    ("copilot", ['<skill-context name="pdf">\nBase directory for this skill: /skills/pdf\n'
                 "Read the alpacaskill notes first.\n</skill-context>"], {}, "alpacaskill",
     "system", "skill"),
    ("cursor", ["<user_info>\nOS Version: linux\nWorkspace Path: /work/bilbyinfo\n</user_info>"],
     {}, "bilbyinfo", "hide", ""),
    ("cursor", ["<attached_files>\n<file_contents path=\"/src/numbat.py\">numbatfile()"
                "</file_contents>\n</attached_files>"], {}, "numbatfile", "system",
     "attached files"),
    ("grok", ["<user_info>\nThe user's OS: linux. Workspace: /work/dingoinfo\n</user_info>"], {},
     "dingoinfo", "hide", ""),
    ("grok", ["The user interrupted the previous turn:"], {"synthetic_reason": "interjection"},
     "interrupted", "system", "interruption"),
    ("iflow", ["# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nUse emurules always.\n"
               "</INSTRUCTIONS>"], {}, "emurules", "hide", ""),
    ("iflow", ["<system-reminder>The todo list holds cassowarytodo</system-reminder>"], {},
     "cassowarytodo", "hide", ""),
    ("droid", ["<system-reminder>Droid reminder about bitterntodos</system-reminder>"], {},
     "bitterntodos", "hide", ""),
    ("amp", ["Summary of the wallabyplan so far, as I typed it"], {}, "wallabyplan", "user", ""),
    ("pi", ['<skill name="review" location="/skills/review/SKILL.md">\nReferences are relative to'
            " /skills/review.\n\nCheck the platypusskill list.\n</skill>"], {}, "platypusskill",
     "system", "skill"),
    ("pi", ['<file name="/repo/notes.md">\nechidnafile notes\n</file>\n'], {}, "echidnafile",
     "system", "attached file"),
    ("openclaw", ['Conversation info (untrusted metadata):\n```json\n{\n  "message_id": "42",\n'
                  '  "sender": "quokkasender"\n}\n```'], {}, "quokkasender", "hide", ""),
    ("openclaw", ["System: [2026-06-01 10:00] Cron: quollcron finished"], {}, "quollcron",
     "system", "system event"),
    ("vibe", ["<vibe_warning>Plan mode is active: kudzuwarning</vibe_warning>"],
     {"injected": True}, "kudzuwarning", "hide", ""),
    ("vibe", [USER_WORDS, "file:///repo/src/jackal.py\n```\njackalfile()\n```"], {},
     "jackalfile", "system", "attached file"),
    ("qwen", ["\n--- Content from referenced files ---", "\nContent from @src/a.py:\n",
              "quokkafile()", "\n--- End of content ---"], {}, "quokkafile", "system",
     "attached context"),
    ("qwen", ["<task-notification>lyrebirdtask done</task-notification>"],
     {"provenance": "system", "subtype": "notification",
      "systemPayload": {"displayText": "Background task finished: lyrebirdtask"}},
     "lyrebirdtask", "system", "notification"),
    ("kiro", ["--- CONTEXT ENTRY BEGIN ---\nCurrent time: 2026-06-01T10:00:00Z dugongtime\n"
              "--- CONTEXT ENTRY END ---"], {}, "dugongtime", "hide", ""),
    ("goose", ["Summary of the conversation so far: tarsiersummary"],
     {"userVisible": False, "agentVisible": True}, "tarsiersummary", "hide", ""),
]  # fmt: skip
"""(agent, injected parts, the line's flags, the injected word, what becomes of it: ``system``
(kept, found by ``role:system``), ``hide`` (never found) or ``user`` (an agent that injects
nothing there: the text stays the user's), the label it is shown with)."""
IDS = [f"{agent}-{word}" for agent, _, _, word, _, _ in ROWS]


def _homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for entry in AGENTS:  # every other agent's home under HOME, as its defaults put it
        if entry.variable is not None:
            monkeypatch.delenv(entry.variable, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "copilot"))
    monkeypatch.delenv("ADE_SESSION_ID", raising=False)


@pytest.mark.parametrize(("agent", "parts", "flags", "word", "verdict", "label"), ROWS, ids=IDS)
def test_injected_text_is_never_the_users_words(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch, agent: str, parts: list[str],
    flags: dict[str, Any], word: str, verdict: str, label: str,
) -> None:  # fmt: skip
    _homes(tmp_path, monkeypatch)
    path = WRITERS[agent](tmp_path, repo, parts, **flags)
    service = create_project_service(
        open_project(repo), clock=lambda: NOW, timer=ManualTimerFactory(), start_worker=False
    )
    try:
        service.catch_up()

        def found(query: str, **more: Any) -> list[Any]:
            return list(service.query(SearchQueryArgs(query=query, limit=50, **more)).items)

        users = found("marmoset")
        assert users, "the user's own words are found"
        # a plain search never matches injected text (an agent's own words: always)
        assert len(found(word)) == (1 if verdict == "user" else 0)
        noticed = found(f"role:system {word}")
        assert len(noticed) == (1 if verdict == "system" else 0)
        sessions = found("marmoset", sessions=True)
        assert [s.title for s in sessions] == [USER_WORDS]  # never a title
    finally:
        service.dispose()
    events = read_external_events(path, agent)
    said = [e for e in events if e.type == "user_message" and word in e.data["text"]]
    assert len(said) == (1 if verdict == "user" else 0)
    shown = [e for e in events if e.type == "system_message" and word in e.data["text"]]
    assert len(shown) == (1 if verdict == "system" else 0)
    if shown:
        # the notice's link lands on its record; a record holding the user's words too shows both
        lines = [line.text for line in chat_context(path, shown[0].seq, radius=1).lines]
        assert any(t.startswith(f"system ({label}): ") and word in t for t in lines), lines


CLI_ROWS = [row for row in ROWS if row[3] in ("wombatsummary", "narwhalfile", "ferretabort",
                                                "alpacaskill", "numbatfile", "lyrebirdtask")]  # fmt: skip


@pytest.mark.usefixtures("cli_path")
@pytest.mark.parametrize(
    ("agent", "parts", "flags", "word", "verdict", "label"),
    CLI_ROWS,
    ids=[f"{r[0]}-{r[3]}" for r in CLI_ROWS],
)
def test_ade_search_and_open_tell_injected_text_apart(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], agent: str, parts: list[str], flags: dict[str, Any],
    word: str, verdict: str, label: str,
) -> None:  # fmt: skip
    del verdict
    _homes(tmp_path, monkeypatch)
    WRITERS[agent](tmp_path, repo, parts, **flags)
    capsys.readouterr()
    assert main(search_argv(repo, "--exact", "--json", word)) == 1
    assert json.loads(capsys.readouterr().out)["items"] == []
    assert main(search_argv(repo, "--exact", "--json", f"role:system {word}")) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    assert [i["kind"] for i in items] == ["chat"]
    assert main(["open", "--project", str(repo), items[0]["deepLink"]]) == 0
    shown = capsys.readouterr().out
    assert f"system ({label}): " in shown
    assert not any(line.lstrip().startswith("user:") and word in line for line in shown.split("\n"))


def test_a_claude_slash_command_or_shell_line_stays_the_users_as_typed(
    tmp_path: Path, repo: Path
) -> None:
    command = ("<command-name>/review</command-name>\n<command-message>review</command-message>\n"
               "<command-args>12 zebrafinch</command-args>")  # fmt: skip
    path = claude(tmp_path, repo, [command, "<bash-input>ls hornbill</bash-input>"])
    said = [e.data["text"] for e in read_external_events(path, "claude")]
    assert said == ["/review 12 zebrafinch", "!ls hornbill", USER_WORDS]


@pytest.mark.parametrize(
    "reply",
    [
        "<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\nweighing the vicunathought option"
        "\n\n</thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\nUse the marmoset fix.",
        "--------------\n► **THINKING**\n\nweighing the vicunathought option\n\n------------\n"
        "► **ANSWER**\n\nUse the marmoset fix.",
    ],
    ids=["tagged", "shown"],
)
def test_aiders_reasoning_is_never_found(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch, reply: str
) -> None:
    _homes(tmp_path, monkeypatch)
    history = repo / ".aider.chat.history.md"
    history.write_text(
        f"\n# aider chat started at 2026-06-01 10:00:00\n\n#### {USER_WORDS}\n\n{reply}\n\n"
    )
    service = create_project_service(
        open_project(repo), clock=lambda: NOW, timer=ManualTimerFactory(), start_worker=False
    )
    try:
        service.catch_up()
        for query in ("vicunathought", "role:system vicunathought", "THINKING"):
            assert service.query(SearchQueryArgs(query=f"kind:chat {query}")).items == (), query
        found = service.query(SearchQueryArgs(query="kind:chat use marmoset")).items
        assert found  # the reply itself
    finally:
        service.dispose()
    said = [e.data.get("text") for e in read_external_events(history, "aider")]
    assert said == [USER_WORDS, "Use the marmoset fix."]
