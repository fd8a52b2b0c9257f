"""`ade import` with what people really have lying around: gzip logs, garbage
`.cast` files, timing files, binaries, recordings still being written, sidecars, and removal —
all through the real CLI entry and the real index.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from cli_helpers import no_daemon_flag

from tui.cli import main

pytestmark = pytest.mark.usefixtures("cli_path")

PANE = b"$ make\r\nerror: zorblax undefined\r\n"


def _import(capsys: pytest.CaptureFixture[str], repo: Path, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["import", *args, "--project", str(repo)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _sid(out: str) -> str:
    return out.split("\t")[0]


def _record(repo: Path, sid: str) -> dict[str, object]:
    return json.loads((repo / ".ade" / "sessions" / f"{sid}.json").read_bytes())  # type: ignore[no-any-return]


def _found(capsys: pytest.CaptureFixture[str], repo: Path, *query: str) -> list[str]:
    capsys.readouterr()
    code = main(
        ["search", *no_daemon_flag(), "--project", str(repo), "--json", "kind:terminal", *query]
    )
    items = json.loads(capsys.readouterr().out)["items"] if code == 0 else []
    return [str(item["docId"]) for item in items]


def test_gzip_log_is_stored_inflated_and_found(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    packed = tmp_path / "pane.log.gz"
    packed.write_bytes(gzip.compress(PANE))
    code, out, _ = _import(capsys, repo, str(packed))
    assert code == 0
    sid = _sid(out)
    assert (repo / ".ade" / "terminals" / f"{sid}.log").read_bytes() == PANE
    assert any(d.startswith(f"terminal:{sid}") for d in _found(capsys, repo, "zorblax"))
    assert _record(repo, sid)["title"] == "pane.log"
    plain = tmp_path / "pane.log"
    plain.write_bytes(PANE)
    (tmp_path / "pane.log.meta.json").write_text('{"title": "Pane"}')  # serves both files
    code, out, _ = _import(capsys, repo, str(plain))
    assert (code, _sid(out)) == (0, sid)  # the same recording, compressed or not
    assert _record(repo, sid)["title"] == "Pane"
    code, out, _ = _import(capsys, repo, str(packed))
    assert _record(repo, sid)["title"] == "Pane"


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("demo.cast", b"this is not an asciicast at all\n", "demo.cast"),
        ("demo.cast", gzip.compress(b"\x00\x01garbage"), "demo.cast"),
        ("run.timing", b"0.512 10\n0.25 48\n1.5 3\n", "--timing run.timing"),
        ("adv.tm", b"H 0.0 START_TIME 2026-05-28T10:00:00+00:00\nO 0.5 10\n", "timing file"),
        ("shot.log", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8, "not a terminal recording"),
        ("blob.log", bytes(range(256)) * 64, "not a terminal recording"),
        ("cut.log.gz", gzip.compress(PANE * 50)[:8], "nothing in it could be read"),
        ("deep.cast", b"[" * 100_000 + b"]" * 100_000 + b"\n", "deep.cast"),
    ],
    ids=["garbage-cast", "gzipped-garbage-cast", "timing", "advanced-timing", "png", "binary",
         "truncated-gz", "deep-cast"],
)  # fmt: skip
def test_what_is_not_a_recording_is_refused_with_one_line_and_exit_2(
    repo: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    data: bytes,
    message: str,
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    code, out, err = _import(capsys, repo, str(path))
    assert (code, out) == (2, "")
    assert message in err
    assert err.count("\n") == 1
    assert not (repo / ".ade").exists()


def test_format_tmux_still_imports_binary_output_on_request(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "blob.log"
    path.write_bytes(bytes(range(256)) * 64 + b"\n")
    code, _, _ = _import(capsys, repo, str(path), "--format", "tmux")
    assert code == 0


def test_torn_recording_waits_for_its_last_line_then_the_same_session_continues(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "pane.log"
    log.write_bytes(PANE + b"$ deploy quuxfrobnicate")  # the recorder is still writing
    code, out, err = _import(capsys, repo, str(log))
    assert code == 0
    assert "ends mid-line" in err
    sid = _sid(out)
    assert _record(repo, sid)["endedAt"] is None
    assert _found(capsys, repo, "zorblax")
    assert _found(capsys, repo, "quuxfrobnicate") == []  # the torn line stays out
    with log.open("ab") as handle:
        handle.write(b" --now\r\ndeployed\r\n")
    code, out, _ = _import(capsys, repo, str(log))
    assert (code, _sid(out)) == (0, sid)  # the grown file continues that session
    assert _record(repo, sid)["endedAt"] is not None
    # The tail is appended to the stored log in place (idempotent re-import): it is indexed as a chunk of
    # its own after the lines already indexed, which are not indexed again.
    assert _found(capsys, repo, "quuxfrobnicate") == [f"terminal:{sid}@{len(PANE)}"]
    assert len(list((repo / ".ade" / "sessions").iterdir())) == 1


def test_ended_flag_indexes_a_torn_last_line(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "pane.log"
    log.write_bytes(PANE + b"$ exit quuxfrobnicate")
    code, out, err = _import(capsys, repo, str(log), "--ended")
    assert code == 0
    assert [line for line in err.splitlines() if "info/exclude" not in line] == []  # no refusal
    assert _record(repo, _sid(out))["endedAt"] is not None
    assert _found(capsys, repo, "quuxfrobnicate")


def test_torn_asciicast_is_not_ended(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cast = tmp_path / "live.cast"
    cast.write_bytes(
        b'{"version": 2, "width": 80, "height": 24, "timestamp": 1780000000}\n'
        b'[0.1, "o", "zorblax built\\r\\n"]\n[0.2, "o", "half an ev'
    )
    code, out, _ = _import(capsys, repo, str(cast))
    assert code == 0
    assert _record(repo, _sid(out))["endedAt"] is None


def test_title_and_lane_from_the_sidecar_and_the_flags_win(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "pane.log"
    log.write_bytes(PANE)
    sidecar = tmp_path / "pane.log.meta.json"
    sidecar.write_text(json.dumps({"title": "Nightly build", "lane": "feature-x"}))
    code, out, _ = _import(capsys, repo, str(log))
    assert code == 0
    record = _record(repo, _sid(out))
    assert (record["title"], record["laneId"]) == ("Nightly build", "feature-x")
    code, out, _ = _import(capsys, repo, str(log), "--title", "Hotfix run", "--lane", "primary")
    assert code == 0
    record = _record(repo, _sid(out))
    assert (record["title"], record["laneId"]) == ("Hotfix run", "primary")


@pytest.mark.parametrize(
    ("sidecar", "message"),
    [
        ("{not json", "bad json"),
        ('{"title": 5}', "'title' must be a non-empty string"),
        ('{"lane": "nope"}', "unknown lane 'nope'"),
        ("[" * 5000 + "]" * 5000, "nested too deep"),
    ],
    ids=["bad-json", "bad-title", "unknown-lane", "deep"],
)
def test_bad_sidecar_is_one_line_exit_2_and_nothing_written(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], sidecar: str, message: str
) -> None:
    log = tmp_path / "pane.log"
    log.write_bytes(PANE)
    (tmp_path / "pane.log.meta.json").write_text(sidecar)
    code, _, err = _import(capsys, repo, str(log))
    assert code == 2
    assert message in err
    assert err.count("\n") == 1
    assert not (repo / ".ade").exists()


def test_remove_deletes_what_the_import_created_and_its_docs_leave_the_index(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "pane.log"
    log.write_bytes(PANE)
    _, out, _ = _import(capsys, repo, str(log))
    sid = _sid(out)
    assert _found(capsys, repo, "zorblax")
    before = sorted(p.name for p in (repo / ".ade").rglob("*") if p.is_file())
    code, out, _ = _import(capsys, repo, "--remove", sid)
    assert (code, out) == (0, f"{sid}\tremoved\n")
    after = sorted(p.name for p in (repo / ".ade").rglob("*") if p.is_file())
    assert set(before) - set(after) == {f"{sid}.log", f"{sid}.json"}
    assert _found(capsys, repo, "zorblax") == []


def test_remove_refuses_what_import_did_not_create(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions = repo / ".ade" / "sessions"
    sessions.mkdir(parents=True)
    term = {"id": "term-1", "kind": "terminal", "title": "shell", "source": "ade",
            "createdAt": "2026-05-01T10:00:00Z"}  # fmt: skip
    (sessions / "term-1.json").write_text(json.dumps(term))
    for sid, message in [("term-1", "not created by ade import"), ("import-0", "no imported"),
                         ("../x", "not a session id")]:  # fmt: skip
        code, out, err = _import(capsys, repo, "--remove", sid)
        assert (code, out) == (2, "")
        assert message in err
    assert (sessions / "term-1.json").exists()
