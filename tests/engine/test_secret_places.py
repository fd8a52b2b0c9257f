"""A secret is neither shown nor findable wherever text comes from (docs/redaction.md): a branch named
after a token (id, anchor, link, index file), a Linear issue (redacted before its snippet window
is cut, and not found through the secret)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.delegates.gather import delegated_candidates
from engine.ingest.timers import ManualTimerFactory
from engine.links.details import branch_detail
from engine.project.locate import open_project
from engine.query.plan import build_plan
from engine.redaction.ids import hashed_name, resolve_ref, safe_ref
from engine.types import SearchQueryArgs
from engine.wiring import create_project_service
from tests.engine.delegates import test_linear
from tests.engine.delegates.test_linear import LinearLike, linear_url  # noqa: F401 - fixture
from tests.engine.ingest.conftest import ProjectWriter, _git
from tests.engine.test_redaction_formats import SENDGRID, SHOPIFY

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)
BRANCH = f"fix-{SHOPIFY}"


def test_a_name_with_a_secret_gets_a_stable_hashed_ref() -> None:
    assert safe_ref("feature/login") == "feature/login"
    ref = safe_ref(BRANCH)
    assert ref == hashed_name(BRANCH)
    assert ref.startswith("redacted-")
    assert len(ref) == 25
    assert SHOPIFY not in ref
    assert resolve_ref(ref, ["main", BRANCH]) == BRANCH
    assert resolve_ref(ref, ["main"]) is None


def test_a_branch_named_after_a_secret_keeps_it_out_of_ids_links_and_the_index(
    tmp_path: Path,
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text(".ade/\n", encoding="utf-8")
    ProjectWriter(root).commit("walrus first commit")
    _git(root, "branch", BRANCH)
    service = create_project_service(open_project(root), clock=lambda: NOW,
                                     timer=ManualTimerFactory(), start_worker=False)  # fmt: skip
    try:
        service.catch_up()
        items = service.query(SearchQueryArgs(query="fix", kinds=("branch",), limit=50)).items
        (item,) = [i for i in items if i.doc_id != "branch:main"]
        assert item.doc_id == f"branch:{hashed_name(BRANCH)}"
        assert item.anchor == hashed_name(BRANCH)
        for text in (item.doc_id, item.title, item.snippet, item.deep_link, item.anchor):
            assert SHOPIFY not in text
            assert SHOPIFY[6:22] not in text
        assert service.query(SearchQueryArgs(query=SHOPIFY, kinds=("branch",))).items == ()
        db = service.project.index_path
        raw = b"".join(p.read_bytes() for p in (db, db.with_name(db.name + "-wal")) if p.exists())
        assert SHOPIFY[-12:].lower().encode() not in raw.lower()
    finally:
        service.dispose()
    shown = branch_detail(root, item.anchor)  # the hashed link opens the branch
    assert "walrus first commit" in shown.body
    assert SHOPIFY not in shown.title
    assert "[REDACTED:" in shown.title


PEM_BODY = "\n".join(["MIIEowIBAAKCAQEA7Yq9Zk3Lw8Vn2Xp4Qr6Ts1Uv5Wx7Yz9Ab3Cd5Ef7Gh9Ij1Kl3Mn"] * 4)
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"


@pytest.fixture
def secret_issue(monkeypatch: pytest.MonkeyPatch) -> None:
    node = {
        "identifier": "SEC-1",
        "title": "Rotate the deploy key",
        "description": f"{'Context words. ' * 12}{PEM}\nrotated the walrus deploy key; "
        f"mail key {SENDGRID}",
        "url": "https://linear.app/acme/issue/SEC-1",
        "updatedAt": "2026-06-14T09:00:00.000Z",
        "state": {"name": "Done"},
    }
    monkeypatch.setattr(test_linear, "ISSUES", {"data": {"searchIssues": {"nodes": [node]}}})
    LinearLike.mode = "ok"


@pytest.mark.usefixtures("secret_issue")
def test_a_linear_issue_is_redacted_before_its_window_and_not_found_by_a_secret(
    linear_url: str,  # noqa: F811 - the fixture
    tmp_path: Path,
) -> None:
    env = {"LINEAR_API_KEY": "k", "ADE_LINEAR_API_URL": linear_url}
    project = test_linear._project(tmp_path)

    def found(query: str) -> list[str]:
        plan = build_plan(SearchQueryArgs(query=query, kinds=("linear",)), now=NOW, lanes=[])
        return [c.snippet_marked for c in delegated_candidates(project, plan, [], env)[0]]

    (snippet,) = found("MIIEowIBAAKCAQEA7Yq9Zk3Lw8Vn2Xp4Qr6Ts1Uv5Wx7Yz9Ab3Cd5Ef7Gh9Ij1Kl3Mn")[
        :1
    ] or [""]
    assert PEM_BODY[:40] not in snippet
    (rotated,) = found("deploy")
    assert "PRIVATE KEY" not in rotated.replace("[REDACTED:private-key]", "")
    assert PEM_BODY[:40] not in rotated
    assert found(SENDGRID) == []


def test_an_artifact_titled_with_a_secret_is_shown_redacted_and_not_found_by_it(
    tmp_path: Path,
) -> None:
    import json

    project = test_linear._project(tmp_path)
    folder = project.ade_dir / "artifacts"
    folder.mkdir(parents=True)
    record = {"id": "art1", "title": f"walrus deploy with {SENDGRID}", "kind": "log",
              "path": "deploy.log", "createdAt": "2026-06-14T10:00:00+00:00"}  # fmt: skip
    (folder / "art1.json").write_text(json.dumps(record), encoding="utf-8")

    def found(query: str) -> list[str]:
        plan = build_plan(SearchQueryArgs(query=query, kinds=("artifact",)), now=NOW, lanes=[])
        return [c.title for c in delegated_candidates(project, plan, [], {})[0]]

    (title,) = found("walrus")
    assert SENDGRID not in title
    assert "[REDACTED:sendgrid-api-token]" in title
    assert found(SENDGRID) == []
    assert found(SENDGRID[3:25]) == []


def test_a_lane_on_a_branch_named_after_a_secret_links_the_hashed_name(tmp_path: Path) -> None:
    from engine.project.model import Lane

    project = test_linear._project(tmp_path)
    folder = tmp_path / "walrus-lane"
    folder.mkdir()
    lane = Lane("walrus-lane", "walrus-lane", folder, BRANCH, False)

    def found(query: str) -> list[tuple[str, str]]:
        plan = build_plan(SearchQueryArgs(query=query, kinds=("lane",)), now=NOW, lanes=[lane])
        found = delegated_candidates(project, plan, [lane], {})[0]
        return [(c.snippet_marked, c.extra.deep_link) for c in found]

    ((snippet, link),) = found("walrus")
    assert SHOPIFY not in snippet
    assert SHOPIFY not in link
    assert hashed_name(BRANCH) in link
    assert found(SHOPIFY) == []
