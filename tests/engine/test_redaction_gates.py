"""The gates in front of the gitleaks rules (``engine.redaction.scan``) and the bulk pass change
no output: gated and ungated redaction give the same text on real secret formats and on text
built to hold each gated rule's keyword without its secret."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.redaction import redact_secrets
from engine.redaction import rules as redaction_rules
from engine.redaction import scan as redaction_scan
from engine.redaction.formats import FORMATS

EXAMPLES = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "gitleaks_examples.json"

NEAR_MISSES = [
    "payload = s.header + s.body; live_ = test_ ; sumo wrestling",
    "lob_key = live_0123456789abcdef0123456789abcdef012 and LOB=test_0123456789abcdef",
    "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc",
    "SUMO_ACCESS_ID=suAbCdEfGhIjKl and sumo key: su12345678901",
    "vault s.AbCdEfGhIjKlMnOpQrStUvWx and hvs." + "a" * 95 + " done",
]


def _texts() -> list[str]:
    rules = json.loads(EXAMPLES.read_text())["rules"]
    texts = [t for examples in rules.values() for t in (*examples["tps"], *examples["fps"])]
    return [*texts, *NEAR_MISSES]


def test_gated_and_ungated_redaction_are_identical(monkeypatch: pytest.MonkeyPatch) -> None:
    redaction_rules.scan_literals_in_one_pass()  # the ingester's bulk pass
    texts = _texts()
    gated = [redact_secrets(t) for t in texts]
    monkeypatch.setattr(redaction_scan, "GATED", False)
    ungated = [redact_secrets(t) for t in texts]
    assert gated == ungated
    assert sum(g != t for g, t in zip(gated, texts, strict=True)) > 150  # real secrets were found


def test_every_gate_is_implied_by_its_rule() -> None:
    """Wherever a gated rule's regex matches, its gate is there (so a gate never hides one)."""
    gated = {f.rule_id: i for i, f in enumerate(FORMATS) if f.rule_id in redaction_scan._GATES}
    assert set(gated) == set(redaction_scan._GATES)
    matched = set()
    for text in _texts():
        haystack = redaction_scan._haystack(text)
        for rule_id, index in gated.items():
            if redaction_scan._rule_re(index).search(text):
                matched.add(rule_id)
                assert redaction_scan._gate(rule_id, text, haystack), (rule_id, text)
    assert matched == set(gated)  # each gate was tried on a text its rule matches


def test_a_gate_skips_a_rule_whose_secret_cannot_be_there() -> None:
    text = "ask s.headers for the live_ value"
    haystack = redaction_scan._haystack(text)
    assert not redaction_scan._gate("vault-service-token", text, haystack)
    assert not redaction_scan._gate("lob-api-key", text, haystack)
    assert redaction_scan._gate("generic-api-key", text, haystack)  # ungated rule


STANDIN_TEXTS = [
    "def test_login(): assert client.test_user",  # test_ without its gate
    "LOB_API_KEY=test_0123456789abcdef0123456789abcdef012 (lob)",  # an assignment rule's first
    "lob: test_0123456789abcdef0123456789abcdef012 and test_again",
    "GOCARDLESS=live_" + "aB3-_" * 8 + " and test_x lob",
]


def test_a_gate_stands_in_for_its_keyword_in_the_bulk_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """``test_`` (only ``lob-api-key``'s, gated by ``lob``) is looked for where ``lob`` occurs:
    the bulk pass reports it there, at its first place, and nowhere else, and redacts as the
    per-keyword path does."""
    assert redaction_scan._gate_standins() == {b"lob": (b"test_",)}
    redaction_rules.scan_literals_in_one_pass()
    texts = [*_texts(), *STANDIN_TEXTS]
    bulk = [redact_secrets(t) for t in texts]
    assert bulk[-2] == "lob: [REDACTED:lob-api-key] and test_again"  # a Lob test key
    hits = [redaction_scan.one_pass(redaction_scan._haystack(t))[1] for t in STANDIN_TEXTS]
    assert b"test_" not in hits[0]
    assert hits[2][b"test_"] == [STANDIN_TEXTS[2].index("test_")]
    monkeypatch.setattr(redaction_rules, "literal_automaton", None)  # one `in` per keyword
    assert [redact_secrets(t) for t in texts] == bulk
