"""Secret redaction: every token family, assignments, PEM across chunks, false positives."""

from __future__ import annotations

import apsw
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import redaction
from engine.redaction import redact_secrets
from engine.redaction.scan import redact_formats
from engine.terminal.chunking import chunk_terminal_bytes

GHP = "ghp_" + "A1b2C3d4E5" * 3 + "f6G7h8"
PAT = "github_pat_11ABCDEFG0" + "x9Y8z7W6v5" * 6
OPENAI = "sk-" + "Ab3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5hJ7kL9mN1"
PROJECT = "sk-proj-" + "a1B2c3D4e5_F6g7H8i9-J0" * 3
ANTHROPIC = "sk-ant-api03-" + "Zx9_Yw8-Vu7" * 8 + "AA"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
AWS_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
PEM_BODY = "\n".join(["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7" + "Qw" * 6] * 4)
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize(
    ("text", "expected", "secret"),
    [
        (f"key {AWS_ID} used", "key [REDACTED:aws-access-key-id] used", AWS_ID),
        ("ASIAY34FZKBOKMUTVV7A", "[REDACTED:aws-access-key-id]", "ASIAY34FZKBOKMUTVV7A"),
        (
            f"aws_secret_access_key = {AWS_SECRET}",
            "aws_secret_access_key = [REDACTED:secret]",
            AWS_SECRET,
        ),
        (f"export GITHUB_TOKEN={GHP}", "export GITHUB_TOKEN=[REDACTED:token]", GHP),
        (f"push with {GHP} done", "push with [REDACTED:github-token] done", GHP),
        (
            f"gho_{'k' * 36} ghs_{'9' * 40}",
            "[REDACTED:github-token] [REDACTED:github-token]",
            "kkkk",
        ),
        (f"pat {PAT}.", "pat [REDACTED:github-token].", PAT),
        (f"OPENAI_KEY {OPENAI}", "OPENAI_KEY [REDACTED:openai-key]", OPENAI),
        (f"key={PROJECT}", "key=[REDACTED:openai-key]", PROJECT),
        (f"x-api: {ANTHROPIC}", "x-api: [REDACTED:anthropic-key]", ANTHROPIC),
        ("xoxb-1234567890-abcdefGHIJ", "[REDACTED:slack-token]", "1234567890-abcdefGHIJ"),
        ("xoxp-12-34-56-abcdef0123", "[REDACTED:slack-token]", "abcdef0123"),
        (
            "Authorization: Bearer abc.DEF-123_xyz",
            "Authorization: Bearer [REDACTED:bearer-token]",
            "abc.DEF-123_xyz",
        ),
        (
            "curl -H 'authorization: Basic dXNlcjpwYXNzd29yZA=='",
            "curl -H 'authorization: Basic [REDACTED:bearer-token]'",
            "dXNlcjpwYXNzd29yZA==",
        ),
        ("bearer Zm9vYmFyMTIz", "bearer [REDACTED:bearer-token]", "Zm9vYmFyMTIz"),
        (f"cookie {JWT} end", "cookie [REDACTED:jwt] end", JWT[40:70]),
        (f"before\n{PEM}\nafter", "before\n[REDACTED:private-key]\nafter", PEM_BODY[:30]),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n",
            "[REDACTED:private-key]",
            "b3BlbnNzaC1rZXktdjEAAAAA",
        ),
        ("password=hunter2", "password=[REDACTED:password]", "hunter2"),
        ("DB_PASSWORD=s3cr3t!", "DB_PASSWORD=[REDACTED:password]", "s3cr3t!"),
        ("passwd: Tr0ub4dor#3", "passwd: [REDACTED:password]", "Tr0ub4dor#3"),
        ('{"password": "letmein"}', '{"password": "[REDACTED:password]"}', "letmein"),
        ("client_secret='abcXYZ'", "client_secret='[REDACTED:secret]'", "abcXYZ"),
        ("SECRET_KEY=django-insecure-42", "SECRET_KEY=[REDACTED:secret]", "django-insecure"),
        ("api_key=12345abcde", "api_key=[REDACTED:api-key]", "12345abcde"),
        ("apiKey: 'k-123456'", "apiKey: '[REDACTED:api-key]'", "k-123456"),
        ("X-Api-Key: Abc123Def456", "X-Api-Key: [REDACTED:api-key]", "Abc123Def456"),
        (
            "GET /cb?access_token=ya29.a0Af&state=1",
            "GET /cb?access_token=[REDACTED:token]&state=1",
            "ya29.a0Af",
        ),
        (
            "git clone https://bob:hunter2@github.com/x/y",
            "git clone https://bob:[REDACTED:password]@github.com/x/y",
            "hunter2",
        ),
        (
            "postgres://app:p%40ss@db:5432/x",
            "postgres://app:[REDACTED:password]@db:5432/x",
            "p%40ss",
        ),
    ],
)
def test_secrets_are_replaced_by_a_marker(text: str, expected: str, secret: str) -> None:
    redacted = redact_secrets(text)
    assert redacted == expected
    assert secret not in redacted


@pytest.mark.parametrize(
    "text",
    [
        "commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f",
        "id 123e4567-e89b-12d3-a456-426614174000",
        "pip install sk-learn scikit-learn",
        "sk-this-is-a-very-long-kebab-case-slug",  # long, but no digit
        "task-1234567890123456789012345",
        "unexpected token: expected ';'",
        "SyntaxError: Unexpected token: '}'",
        "passwd: password updated successfully",
        "password: str = Field(...)",
        "password = getpass.getpass()",
        "token = self.token",
        "password=$DB_PASSWORD",
        "token: ${{ secrets.GITHUB_TOKEN }}",
        "password: ********",
        "Authorization: required",
        "the bearer of bad news",
        "max_tokens=4096 tokens=12",
        "http://localhost:8080/path@v2",
        "git@github.com:org/repo.git",
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
        "AKIA is a prefix; THISAKIAIOSFODNN7EXAMPLE is glued",
        "ghp_short",
        "the quick brown fox; api docs; secret sauce; private key rotation",
    ],
)
def test_ordinary_text_stays(text: str) -> None:
    assert redact_secrets(text) == text


def test_marker_is_not_matched_again_and_redaction_is_idempotent() -> None:
    text = f"token={GHP}\npassword=hunter2 {AWS_ID}"
    once = redact_secrets(text)
    assert redact_secrets(once) == once


def test_pem_block_split_across_newline_aligned_chunks() -> None:
    transcript = f"$ cat id_rsa\n{PEM}\n$ echo done\n".encode()
    chunks = chunk_terminal_bytes(transcript, 0, force=True, target_chars=120).chunks
    assert len(chunks) >= 3  # the block really is split
    redacted = [redact_secrets(chunk.text) for chunk in chunks]
    joined = "".join(redacted)
    for line in PEM_BODY.splitlines():
        assert line not in joined
    assert "BEGIN RSA PRIVATE KEY" not in joined
    assert "$ cat id_rsa" in joined
    assert "$ echo done" in joined


def test_hex_columns_at_chunk_start_are_not_a_pem_tail() -> None:
    shas = "\n".join(["3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f"] * 5) + "\n"
    assert redact_secrets(shas) == shas


def test_snippet_never_shows_the_raw_value() -> None:
    rows = [
        f"deploy failed with GITHUB_TOKEN={GHP} for user alice",
        f"deploy retried: Authorization: Bearer {OPENAI}",
        "deploy ok password=hunter2 via https://bob:hunter2@example.com",
    ]
    connection = apsw.Connection(":memory:")
    connection.execute("CREATE VIRTUAL TABLE docs USING fts5(body)")
    for row in rows:
        connection.execute("INSERT INTO docs(body) VALUES (?)", (redact_secrets(row),))
    snippets = [
        snippet
        for (snippet,) in connection.execute(
            "SELECT snippet(docs, 0, char(1), char(2), '…', 64) FROM docs WHERE docs MATCH 'deploy'"
        )
    ]
    assert len(snippets) == 3
    for snippet in snippets:
        for secret in (GHP, OPENAI, "hunter2"):
            assert secret not in snippet
        assert "REDACTED" in snippet
    for secret in (GHP, "hunter2"):
        assert not list(
            connection.execute("SELECT 1 FROM docs WHERE docs MATCH ?", (f'"{secret}"',))
        )


SECRET_FRAGMENTS = ["AKIA", "ABCDEFGHIJKLMNOP12", "ghp_", "x" * 36, "github_pat_", "sk-", "sk-ant-",
                    "abc123DEF456ghi789JKL", "xoxb-", "eyJ", "eyJhbGciOiJIUzI1NiJ9", ".", "://",
                    "user", ":", "pa55w0rd!", "@", "Bearer ", "bearer ", "Authorization: ", "token",
                    "Token", "=", '"', "'", "secret_key", "API_KEY", "api-key", "private_key",
                    "password", "PASSWD", "passphrase", " ", "\n", "-----BEGIN RSA PRIVATE KEY-----",
                    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "-----END RSA PRIVATE KEY-----", "é", "İ",
                    "AIza", "npm_", "glpat-", "sk_live_", "rk_live_", "hooks.slack.com/services/",
                    "T0123/", "B0123/", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                    "-----BEGIN PGP PRIVATE KEY BLOCK-----", "-----END PGP PRIVATE KEY BLOCK-----"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(SECRET_FRAGMENTS), max_size=30).map("".join))
def test_the_literal_prefilter_changes_nothing(text: str) -> None:
    # Running only the rules whose literal is present gives what the full alternation gives
    # ("> " first: no PEM tail at the start, the one step outside the alternation).
    text = "> " + text
    full = redaction._redact_with(redaction.full_pattern(), text)
    assert redact_secrets(text) == redact_formats(full)


AWS_PAIR_CSV = f"User name,Access key ID,Secret access key\nci-bot,{AWS_ID},{AWS_SECRET}\n"
SLACK_HOOK = "https://hooks.slack.com/services/T024BE7LD/B01ABCDEF12/aB3dE5gH7jK9mN1pQ3sT5vW7"
STRIPE_LIVE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
STRIPE_RESTRICTED = "rk_live_" + "51HxYz0AbCdEfGhIjKlMnOpQr"
GOOGLE = "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"
NPM = "npm_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
GITLAB = "glpat-" + "xR4nD0mT0k3nV4lu3zZ9"
PGP_BODY = "\n".join(["lQOYBGXn3FsBCAC7" + "Kq9" * 16] * 3)
PGP = (
    "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n"
    f"{PGP_BODY}\n=tUq4\n-----END PGP PRIVATE KEY BLOCK-----"
)

NEW_FORMATS = [
    # (label, text holding the secret, the secret, near misses that must stay as they are)
    (
        "aws-secret-access-key",
        AWS_PAIR_CSV,
        AWS_SECRET,
        [
            f"{AWS_SECRET} alone, with no key id nearby",
            f"{AWS_ID}\none\ntwo\nthree\n{AWS_SECRET}",  # more than AWS_NEARBY_LINES away
            f"{AWS_ID} commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f",  # a sha: hex, one case
            f"{AWS_ID} {AWS_SECRET}x",  # 41 characters: not the shape
        ],
    ),
    (
        "aws-secret-access-key",
        f"export AWS_ACCESS_KEY_ID={AWS_ID}\nexport AWS_SECRET_KEY_VALUE=x\n{AWS_SECRET}\n",
        AWS_SECRET,
        [],
    ),
    (
        "private-key",
        f"gpg --export-secret-keys\n{PGP}\ndone",
        PGP_BODY[:40],
        [
            "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQENBF\n-----END PGP PUBLIC KEY BLOCK-----",
            "-----BEGIN PGP SIGNATURE-----\niQEzBAEB\n-----END PGP SIGNATURE-----",
        ],
    ),
    (
        "slack-webhook",
        f"curl -X POST {SLACK_HOOK} -d @msg.json",
        "aB3dE5gH7jK9mN1pQ3sT5vW7",
        ["see https://api.slack.com/messaging/webhooks", "https://hooks.slack.com/services/"],
    ),
    (
        "stripe-key",
        f"STRIPE={STRIPE_LIVE}",
        STRIPE_LIVE,
        ["sk_live_mode_enabled = True", "pk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_short1"],
    ),
    ("stripe-key", f"key {STRIPE_RESTRICTED} here", STRIPE_RESTRICTED, ["rk_live_"]),
    (
        "google-api-key",
        f"maps.googleapis.com/maps/api/js?k={GOOGLE}&v=3",
        GOOGLE,
        ["AIzaSyD-too-short", "AIza is a prefix", f"x{GOOGLE}"],
    ),
    (
        "npm-token",
        f"npm publish with {NPM} from CI",
        NPM,
        ["npm_config_registry=https://registry.npmjs.org", "npm_lifecycle_event", f"{NPM}0"],
    ),
    (
        "gitlab-token",
        f"git push https://oauth2@gitlab.com {GITLAB}",
        GITLAB,
        ["glpat-short", "the glpat- prefix"],
    ),
]


@pytest.mark.parametrize(("label", "text", "secret", "near_misses"), NEW_FORMATS)
def test_every_format_is_redacted_and_its_near_misses_stay(
    label: str, text: str, secret: str, near_misses: list[str]
) -> None:
    redacted = redact_secrets(text)
    assert secret not in redacted
    assert redaction.marker(label) in redacted
    assert redact_secrets(redacted) == redacted
    for near_miss in near_misses:  # (a near miss may hold another secret, e.g. the key id)
        assert redaction.marker(label) not in redact_secrets(near_miss), near_miss


def test_aws_secret_key_on_the_key_ids_line_and_the_lines_around_it() -> None:
    lines = [f"line {n}" for n in range(7)]
    lines[3] = f"id={AWS_ID}"
    lines[1] = lines[5] = f"val {AWS_SECRET}"
    lines[0] = lines[6] = f"far {AWS_SECRET}"
    out = redact_secrets("\n".join(lines)).split("\n")
    assert out[1] == out[5] == "val [REDACTED:aws-secret-access-key]"
    assert out[0] == out[6] == f"far {AWS_SECRET}"  # three lines away: not paired


def test_pgp_block_split_across_chunks() -> None:
    transcript = f"$ gpg -a --export-secret-keys\n{PGP}\n$ echo done\n".encode()
    chunks = chunk_terminal_bytes(transcript, 0, force=True, target_chars=120).chunks
    assert len(chunks) >= 3
    joined = "".join(redact_secrets(chunk.text) for chunk in chunks)
    for line in PGP_BODY.splitlines():
        assert line not in joined
    assert "$ echo done" in joined


def test_titles_are_redacted_and_cached() -> None:
    title = f"deploy with GITHUB_TOKEN={GHP}"
    assert redaction.redact_title(title) == "deploy with GITHUB_TOKEN=[REDACTED:token]"
    assert redaction.redact_title(title) is redaction.redact_title(title)
