"""A page of snippets redacted at once (``redact_page``: the gitleaks keywords looked for once in
the joined page) gives exactly what redacting each snippet alone gives, on gitleaks' own secret
examples mixed into pages of prose, with and without the ingester's one-pass automaton."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import engine.redaction as redaction
from engine.redaction import redact_lines, redact_page, redact_secrets
from engine.redaction import rules as redaction_rules

EXAMPLES = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "gitleaks_examples.json"

PROSE = [
    "the connection timed out after 30 seconds, retrying the request",
    "def parse_config(path): return load(path) or {}",
    "ran 412 tests in 3.2s, all passed",
    "git rebase main && ruff check . && mypy",
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\nabcdefghijklmnop\n-----END PRIVATE KEY-----",
    "the monkey took the sky keys to the tokenizer",
    "s.headers and live_ values, sumo wrestling, a .eyJ fragment",
    "globals() from the lob test_ module",  # a gate the automaton looks for in a keyword's place
]


def _secrets() -> list[str]:
    rules = json.loads(EXAMPLES.read_text())["rules"]
    return [t for examples in rules.values() for t in (*examples["tps"], *examples["fps"])]


def _pages(seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    secrets = _secrets()
    pages = [list(PROSE), [PROSE[0]] * 3]  # prose alone: few keywords, none at all
    for _ in range(60):
        size = rng.choice([2, 5, 20, 50])
        pages.append([rng.choice(secrets) if rng.random() < 0.2 else rng.choice(PROSE)
                      for _ in range(size)])  # fmt: skip
    return pages


@pytest.mark.parametrize("path", ["first page", "later page", "automaton"])
def test_a_page_is_redacted_as_each_snippet_alone(
    monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """A process's first page (each literal and keyword looked for with ``in`` in the joined page),
    a later page (one automaton pass over the joined page, its hits given to each text) and a
    process that also ingests (the automaton loaded) all redact as each text alone does."""
    if path == "automaton":
        redaction_rules.scan_literals_in_one_pass()  # a process that also ingests
    else:
        monkeypatch.setattr(redaction_rules, "literal_automaton", None)  # a search
    redacted = 0
    for page in _pages(seed=31):
        alone = [redact_secrets(text) for text in page]
        monkeypatch.setattr(redaction, "_pages_redacted", 0 if path == "first page" else 1)
        assert redact_page(page) == alone
        redacted += sum(a != t for a, t in zip(alone, page, strict=True))
    assert redacted > 100  # the pages held real secrets, replaced on every path


@pytest.mark.parametrize("later", [False, True], ids=["first page", "later page"])
def test_a_secret_split_across_two_snippets_is_neither_ones(
    monkeypatch: pytest.MonkeyPatch, later: bool
) -> None:
    """The joined page holds a key id and a keyword that no snippet holds (one snippet ends where
    the next begins): each snippet is still redacted as it is alone, and a secret inside one is
    replaced whichever neighbours it has."""
    monkeypatch.setattr(redaction, "_pages_redacted", int(later))
    key = "AKIA" + "Q" * 16
    page = ["the config reads AK", key[2:] + " and more", "apik", "ey = 'x'", f"id {key} end", "ok"]
    alone = [redact_secrets(text) for text in page]
    assert redact_page(page) == alone
    assert alone[4] != page[4]
    assert alone[1] == page[1]


def test_a_page_of_one_and_an_empty_page() -> None:
    secret = _secrets()[0]
    assert redact_page([secret]) == [redact_secrets(secret)]
    assert redact_page([]) == []


def _file_lines(count: int) -> list[str]:
    """``count`` short lines, gitleaks' secret examples among prose, none an AWS key id (whose
    neighbours ``redact_lines`` also looks at)."""
    rng = random.Random(7)
    secrets = [
        s for s in _secrets() if "\n" not in s and "aws-access-key-id" not in redact_secrets(s)
    ]
    return [rng.choice(secrets) if rng.random() < 0.2 else rng.choice(PROSE).split("\n")[0]
            for _ in range(count)]  # fmt: skip


@pytest.mark.parametrize("count", [redaction.ONE_PASS_LINES - 1, redaction.ONE_PASS_LINES, 3000])
def test_file_lines_are_redacted_as_each_line_alone(
    monkeypatch: pytest.MonkeyPatch, count: int
) -> None:
    """A query's file hits (``redact_lines``) in a one-shot search: each line as it is alone,
    whether the lines are few (looked for literal by literal) or many (the one-pass automaton is
    loaded for them, ``engine.redaction.scan._automaton``)."""
    from engine.redaction import scan

    monkeypatch.setattr(redaction_rules, "literal_automaton", None)
    monkeypatch.setattr(redaction, "_pages_redacted", 0)
    scan._automaton.cache_clear()
    lines = _file_lines(count)
    alone = [redact_secrets(line) for line in lines]
    assert redact_lines(lines) == alone
    assert sum(a != t for a, t in zip(alone, lines, strict=True)) > count // 20
    assert scan._automaton.cache_info().currsize == (count >= redaction.ONE_PASS_LINES)


def test_a_bare_aws_secret_key_beside_its_key_id_line_is_redacted() -> None:
    """File hits come in line order: a bare secret access key on the line after its key id's is
    redacted as it is in a transcript, and a line far from any key id is not."""
    key_id = "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE"
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    far = ["plain"] * (redaction.AWS_NEARBY_LINES + 1)
    block = [key_id, secret, *far, secret, *far]
    for lines in (block, block * 30):
        redacted = redact_lines(lines)
        assert redacted[1] == "[REDACTED:aws-secret-access-key]"
        assert redacted[len(far) + 2] == secret
