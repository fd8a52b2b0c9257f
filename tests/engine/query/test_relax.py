"""When nothing matches exactly (docs/search.md): the relaxed steps, inflections, typos, the identifier
guard, and what ``--explain`` says of a relaxed hit.

One small real project per module (a git repository with chats, a terminal recording, a PR and a
commit), indexed once. On main every query below that expects a relaxed answer found nothing.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.embedded import EmbeddedClient
from engine.types import SearchQueryArgs, SearchQueryResult

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)

CHATS = {
    "dispatch": "we decided the retrying policy for the webhook dispatcher",
    "ledger": "persist the ledger snapshot before shutdown",
    "flaky": "the flaky test was fixed by seeding the rng",
    "ident": "connectTimeout fired inside strbuf_addf, see src/foo.py",
    "plural": "three timeouts in a row on the settlement worker",
}
TERMINAL = "$ make cache\npersisting cache to disk\nwrote 12 entries\n"
PR = {"number": 7, "title": "Gateway retries", "body": "retries with jitter for the gateway",
      "state": "open", "author": "ana", "headBranch": "retries", "baseBranch": "main",
      "url": "https://example.test/pr/7", "updatedAt": "2026-06-10T09:00:00+00:00",
      "comments": []}  # fmt: skip
COMMIT = "Retried settlement exports nightly"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _session(ade: Path, sid: str, kind: str, day: int) -> None:
    meta = {"id": sid, "kind": kind, "title": f"session {day}", "laneId": "primary",
            "createdAt": f"2026-06-{day:02d}T09:00:00+00:00",
            "updatedAt": f"2026-06-{day:02d}T09:00:00+00:00",
            "endedAt": f"2026-06-{day:02d}T10:00:00+00:00"}  # fmt: skip
    _write(ade / "sessions" / f"{sid}.json", json.dumps(meta))


def build_project(root: Path) -> None:
    root.mkdir(parents=True)
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@e.test"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    _write(root / ".gitignore", ".ade/\n")
    _write(root / "notes.md", "# notes\nthe webhook dispatcher owns retries\n")
    subprocess.run([*git, "add", "-A"], check=True)
    env = {"GIT_AUTHOR_DATE": "2026-06-01T10:00:00Z", "GIT_COMMITTER_DATE": "2026-06-01T10:00:00Z"}
    subprocess.run([*git, "commit", "-q", "-m", COMMIT], check=True, env=env)
    ade = root / ".ade"
    for day, (sid, text) in enumerate(CHATS.items(), 1):
        _session(ade, sid, "chat", day)
        event = {"seq": 1, "ts": f"2026-06-{day:02d}T09:30:00+00:00", "type": "user_message",
                 "id": "m1", "text": text, "status": "accepted"}  # fmt: skip
        _write(ade / "chats" / f"{sid}.jsonl", json.dumps(event) + "\n")
    _session(ade, "cache", "terminal", 8)
    _write(ade / "terminals" / "cache.log", TERMINAL)
    _write(ade / "prs" / "7.json", json.dumps(PR))


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedClient]:
    root = tmp_path_factory.mktemp("relax") / "project"
    build_project(root)
    opened = EmbeddedClient.open(root, clock=lambda: NOW, start_worker=False)
    opened.service.catch_up()
    yield opened
    opened.close()


def ask(client: EmbeddedClient, query: str, **more: object) -> SearchQueryResult:
    args = SearchQueryArgs(query=query, kinds=("chat", "terminal", "pr", "commit"), **more)  # type: ignore[arg-type]
    return client.query(args)


def ids(result: SearchQueryResult) -> list[str]:
    return [item.doc_id for item in result.items]


def test_a_typo_of_five_letters_is_corrected_and_answers(client: EmbeddedClient) -> None:
    found = ask(client, "dispatcer")  # one letter missing
    assert ids(found) == ["chat:dispatch:m1"]
    assert found.relaxed == "spelling"
    assert any("dispatcer → dispatcher" in w for w in found.warnings)
    swapped = ask(client, "webhook dispacther")  # two letters swapped: one edit
    assert ids(swapped) == ["chat:dispatch:m1"]
    assert swapped.relaxed == "spelling"


@pytest.mark.parametrize("typo", ["fispatcher", "ispatcher", "idspatcher", "wdispatcher"])
def test_a_typo_in_the_first_letter_is_corrected(client: EmbeddedClient, typo: str) -> None:
    found = ask(client, typo)  # replaced, dropped, swapped, one put before it
    assert ids(found) == ["chat:dispatch:m1"]
    assert found.relaxed == "spelling"
    assert any(f"{typo} → dispatcher" in w for w in found.warnings)


def test_the_file_delegate_reads_the_corrected_word(client: EmbeddedClient) -> None:
    found = client.query(SearchQueryArgs(query="dispatcer", kinds=("file",)))
    assert ids(found) == ["file:notes.md:2"]
    assert found.relaxed == "spelling"


def test_a_short_typo_or_two_edits_are_not_corrected(client: EmbeddedClient) -> None:
    assert ask(client, "lexgar").relaxed is None  # two edits from ledger
    assert ask(client, "rngx").items == ()  # four letters: left alone


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("persisted", {"chat:ledger:m1", "terminal:cache@0"}),  # chat persist, term persisting
        ("retries", {"pr:7", "chat:dispatch:m1"}),  # the PR as typed, then retrying
    ],
)
def test_inflections_match_each_other_in_prose(
    client: EmbeddedClient, query: str, expected: set[str]
) -> None:
    found = ask(client, query)
    assert expected <= set(ids(found))
    assert found.relaxed == "inflection"


def test_an_inflected_commit_is_found(client: EmbeddedClient) -> None:
    found = ask(client, "retrying settlement")  # the commit says "Retried settlement"
    assert any(i.kind == "commit" for i in found.items)
    assert found.relaxed in ("inflection", "most_words", "any_word")


def test_strict_matches_rank_above_inflected_ones(client: EmbeddedClient) -> None:
    found = ask(client, "retries")
    assert ids(found)[0] == "pr:7"  # as typed, before the chat that says "retrying"
    timeouts = ask(client, "timeouts")  # as typed first; connectTimeout's part by its stem
    assert ids(timeouts) == ["chat:plural:m1", "chat:ident:m1"]
    assert timeouts.relaxed == "inflection"


@pytest.mark.parametrize("query", ["connectTimeut", "strbuf_adf", "src/fooo.py"])
def test_identifiers_and_paths_are_never_corrected(client: EmbeddedClient, query: str) -> None:
    found = ask(client, query)
    assert found.relaxed is None
    assert found.items == ()


def test_identifiers_stay_exact(client: EmbeddedClient) -> None:
    for query in ("connectTimeout", "strbuf_addf", "src/foo.py"):
        found = ask(client, query)
        assert ids(found) == ["chat:ident:m1"], query
        assert found.relaxed is None


def test_most_of_the_words_then_any(client: EmbeddedClient) -> None:
    most = ask(client, "which test was flaky", limit=1)
    assert ids(most) == ["chat:flaky:m1"]
    assert most.relaxed == "most_words"
    anyone = ask(client, "flaky zeppelin")
    assert ids(anyone) == ["chat:flaky:m1"]
    assert anyone.relaxed == "any_word"
    assert any("any of them" in w for w in anyone.warnings)


def test_a_stop_word_alone_is_no_near_miss(client: EmbeddedClient) -> None:
    found = ask(client, "the zeppelin")  # every chat holds "the"; none holds zeppelin
    assert found.items == ()
    assert found.relaxed is None


def test_a_page_already_full_is_not_relaxed(client: EmbeddedClient) -> None:
    found = ask(client, "retries", limit=1)
    assert ids(found) == ["pr:7"]
    assert found.relaxed is None


@pytest.mark.parametrize(
    ("query", "more"),
    [
        ('"dispatcer"', {}),  # quoted: exact
        ("dispatcer", {"exact": True}),  # --exact
        ("flaky zeppelin", {"exact": True}),
    ],
)
def test_quoting_and_exact_keep_the_strict_answer(
    client: EmbeddedClient, query: str, more: dict[str, object]
) -> None:
    found = ask(client, query, **more)
    assert found.items == ()
    assert found.relaxed is None


def test_filters_apply_to_every_step(client: EmbeddedClient) -> None:
    assert ask(client, "dispatcer kind:pr").items == ()
    found = ask(client, "persisted kind:terminal")
    assert ids(found) == ["terminal:cache@0"]


def test_relaxed_answers_are_deterministic(client: EmbeddedClient) -> None:
    first = ask(client, "which test was flaky")
    assert ask(client, "which test was flaky") == first


def test_explain_says_which_step_matched_each_hit(client: EmbeddedClient) -> None:
    found = ask(client, "retries")
    args = SearchQueryArgs(query="retries", kinds=("chat", "terminal", "pr", "commit"))
    explained = client.explain(args, found.items, now=NOW)
    steps = {e.doc_id: e.relaxed for e in explained}
    assert steps["pr:7"] is None
    assert steps["chat:dispatch:m1"] == "inflection"
    relaxed = next(e for e in explained if e.doc_id == "chat:dispatch:m1")
    assert relaxed.bm25 is not None  # scored by the step's own query
