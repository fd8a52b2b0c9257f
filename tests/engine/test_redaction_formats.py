"""Secrets at the breadth of a real scanner (docs/redaction.md): gitleaks' rule set as generated data,
the formats people paste most, and ordinary code left alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.gen_redaction_formats import go_to_python
from engine.redaction import redact_lines, redact_secrets
from engine.redaction.formats import FORMATS, GITLEAKS_VERSION
from engine.redaction.scan import candidate_rules, find_secrets

EXAMPLES = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "gitleaks_examples.json"

SENDGRID = "SG." + "q2Lm9Vt4Rb7Nw1Yc5Hd3Jf" + "." + "x8Kq2Lm9Vt4Rb7Nw1Yc5Hd3Jf6Gs0Pa8Qe2Tu4Io7Ky"
AZURE_STORAGE = (
    "Zx8Kq2Lm9Vt4Rb7Nw1Yc5Hd3Jf6Gs0Pa8Qe2Tu4Io7Ky9Mn1Bv3Cx5Dz7Fw0Hg2Jk4Ll6Pp8Rr0Ss2Tt4Uu6Vv8Ww=="
)
AZURE_AD = "Xq48Q~hT7vLpZ2mKr9NwB3cYd6Fj1Gs5Hu0Ia8Qe"
TWILIO = "SK2b7f4c9e1a3d5f60718293a4b5c6d7e8"
HUGGINGFACE = "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"
DISCORD = "Ab3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5hJ7kL9mN1pQ3sT5vW7yZ9bC1dE3fG5h"
PYPI = "pypi-AgEIcHlwaS5vcmcCJGE4ZjQ5ZTJjLTk1YzgtNDQ1Ny1hMTk2LTc2ZmI3YzE5MGQ3NgACKlszLCJhNmZkNDY"
DOCKER_AUTH = "b2N0b2NhdDpnaHBfUTd4SzJtTjlwTDR2UjhzVDF3WTZ6QjNjRDVmRzBoSg=="
SHOPIFY = "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"
TELEGRAM = "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw8"
TLS_KEY = (
    "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2UUlCQURBTkJna3Foa2lHOXcwQkFRRUZBQVNDQktjd2dnU2pB"
)
TLS_CRT = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM="

THIRTEEN = [
    ("azure storage", f"DefaultEndpointsProtocol=https;AccountName=prod;AccountKey={AZURE_STORAGE};"
                      "EndpointSuffix=core.windows.net", AZURE_STORAGE),
    ("azure ad client secret", f"use the client secret {AZURE_AD} for the app", AZURE_AD),
    ("twilio", f"twilio key {TWILIO} done", TWILIO),
    ("sendgrid", f"mail via {SENDGRID} please", SENDGRID),
    ("hugging face", f"use {HUGGINGFACE} now", HUGGINGFACE),
    ("discord webhook", f"curl https://discord.com/api/webhooks/1234567890123456789/{DISCORD}",
     DISCORD),
    ("redis", "REDIS_URL=redis://:Pr0dRed1sPw@cache.internal:6379/0", "Pr0dRed1sPw"),
    (".env", "ENCRYPTION_KEY=9f8e7d6c5b4a39281706f5e4d3c2b1a0", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
    ("kubernetes tls.key", f"data:\n  tls.crt: {TLS_CRT}\n  tls.key: {TLS_KEY}\n", TLS_KEY),
    ("pypi", f"uploaded with {PYPI}", PYPI),
    ("docker auth", f'{{"auths": {{"ghcr.io": {{"auth": "{DOCKER_AUTH}"}}}}}}', DOCKER_AUTH),
    ("shopify", f"token {SHOPIFY}", SHOPIFY),
    ("telegram", f"bot 7123456789:{TELEGRAM} started", TELEGRAM),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "secret"), THIRTEEN, ids=[t[0] for t in THIRTEEN])
def test_common_formats_are_redacted(name: str, text: str, secret: str) -> None:
    redacted = redact_secrets(text)
    assert secret not in redacted, name
    assert "[REDACTED:" in redacted
    assert redact_secrets(redacted) == redacted


def test_context_stays_and_a_certificate_is_not_a_key() -> None:
    out = redact_secrets(THIRTEEN[0][1])
    assert "AccountName=prod;AccountKey=[REDACTED:azure-storage-key];EndpointSuffix" in out
    k8s = redact_secrets(THIRTEEN[8][1])
    assert f"tls.crt: {TLS_CRT}" in k8s
    assert "tls.key: [REDACTED:private-key]" in k8s
    assert redact_secrets(THIRTEEN[12][1]) == "bot 7123456789:[REDACTED:telegram-bot-token] started"


@pytest.mark.parametrize(
    "text",
    [
        "\tsecret = xmalloc(len);",
        'Unknown TAP token: "Initialized empty Git repository"',
        "\tnew_item->token = tok;",
        "\targ_tok->token = arg_tok->value = NULL;",
        "\tnewMaxCreationToken = bundle->creationToken;",
        "\t\tcreationToken = 1644442601",
        "\tstruct strbuf last_update_token = STRBUF_INIT;",
        '\tcl_args.token = "quit";',
        "\tpassword=bar",
        "\t\tpassword=askpass-password",
        "git clone https://user:pwd@example.com/ clone",
        "`<protocol>://<user>:<password>@<domain>/<path>`",
        "\tcredential=YS1naXQtdG9rZW4=",
        "echo 'HTTP/1.1 401 Authorization Required'",
        '\twwwauth[]=Bearer authorize_uri="id.example.com" p=1 q=0',
        "ssh -i ~/.ssh/id_ed25519 -o IdentitiesOnly=yes host",
    ],
)
def test_ordinary_code_is_not_redacted(text: str) -> None:
    assert redact_secrets(text) == text
    assert redact_lines([text, "x"]) == [text, "x"]


def test_the_module_is_generated_from_a_named_gitleaks_version() -> None:
    assert GITLEAKS_VERSION.startswith("v8.")
    assert len(FORMATS) >= 200
    assert len({f.rule_id for f in FORMATS}) == len(FORMATS)
    assert all(f.keywords for f in FORMATS)


def test_gitleaks_true_positives_are_redacted_for_nine_rules_in_ten() -> None:
    rules = json.loads(EXAMPLES.read_text())["rules"]
    known = {f.rule_id for f in FORMATS}
    covered = total = 0
    for rule_id, examples in rules.items():
        if rule_id not in known or not examples["tps"]:
            continue
        total += 1
        ok = True
        for example in examples["tps"]:
            found = [example[s:e] for s, e, r in find_secrets(example) if r == rule_id]
            ok = ok and bool(found) and found[0] not in redact_secrets(example)
        covered += ok
    assert total >= 200
    assert covered >= 0.9 * total


def test_gitleaks_false_positives_are_not_found_by_their_rule() -> None:
    rules = json.loads(EXAMPLES.read_text())["rules"]
    for rule_id, examples in rules.items():
        for example in examples["fps"]:
            assert all(r != rule_id for _, _, r in find_secrets(example)), (rule_id, example)


def test_only_rules_whose_keyword_occurs_run() -> None:
    assert candidate_rules("plain words about nothing in particular") == []
    twilio = candidate_rules(f"x {TWILIO}")
    assert {FORMATS[i].rule_id for i in twilio} >= {"twilio-api-key"}
    assert len(twilio) < 10


@pytest.mark.parametrize(
    ("go", "python"),
    [
        (r"\b(SG\.(?i)[a-z0-9]{66})(?:$)", r"\b(SG\.(?i:[a-z0-9]{66}))(?:$)"),
        (r"\b(pat[[:alnum:]]{14})\z", r"\b(pat[a-zA-Z0-9]{14})\Z"),
        (r"(?i)[a-z~|&]+", r"(?i)[a-z\~\|\&]+"),
        (r"a(?i)b", r"a(?i:b)"),
    ],
)
def test_go_regexes_are_translated(go: str, python: str) -> None:
    assert go_to_python(go) == python


def _texts_with_keywords() -> list[str]:
    rules = json.loads(EXAMPLES.read_text())["rules"]
    texts = [t for examples in rules.values() for t in (*examples["tps"], *examples["fps"])]
    return [*texts, *(t for _, t, _ in THIRTEEN), "key=value; token: abc; s.x sk ey", "ab" * 40]


@pytest.mark.parametrize("automaton", [False, True])
def test_keyword_anchored_rules_find_what_a_full_search_finds(
    automaton: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.redaction import rules as redaction_rules
    from engine.redaction import scan as redaction_scan

    if automaton:
        redaction_rules.scan_literals_in_one_pass()
    else:
        monkeypatch.setattr(redaction_rules, "literal_automaton", None)
    anchored = [i for i, f in enumerate(FORMATS) if f.rule_id in redaction_scan.KEYWORD_ANCHORED]
    assert len(anchored) == len(redaction_scan.KEYWORD_ANCHORED)
    for text in _texts_with_keywords():
        if not text.isascii():
            continue
        haystack = redaction_scan._haystack(text)
        hits = redaction_scan._keyword_hits(haystack)
        for index in anchored:
            places = redaction_scan._places(haystack, FORMATS[index].keywords, hits)
            if not places:  # nothing to try; that no match starts elsewhere is the rule's shape
                continue  # (test_redaction_anchored.py), not the texts at hand
            pattern = redaction_scan._rule_re(index)
            fast = [m.span() for m in redaction_scan._anchored(pattern, text, places)]
            assert fast == [m.span() for m in pattern.finditer(text)], (
                FORMATS[index].rule_id,
                text,
            )
