"""The peer bench (journal: "Peers and scale") keeps running without Tantivy, so it cannot rot: its raw
FTS5 and ade parts build real indexes of a tiny generated corpus and answer every query class.

Nothing here is timed: the figures are printed, only their presence and shape are checked.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from benchmarks import bench_peers
from benchmarks.bench_index import load_docs
from benchmarks.corpus import generate
from benchmarks.peers import RawFts5, Spec, fts5_match


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate(3, tmp_path_factory.mktemp("corpus"))


def test_fts5_and_ade_parts_run_without_tantivy(
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(sys.modules, "tantivy", None)  # any `import tantivy` now fails
    argv = ["--mb", "3", "--corpus", str(corpus), "--scales", "0.5,1", "--runs", "1",
            "--work", str(tmp_path), "--no-tantivy", "--series"]  # fmt: skip
    assert bench_peers.main(argv) == 0
    out = capsys.readouterr().out
    results = json.loads((tmp_path / "results-mb3.json").read_text())
    assert set(results) == {"0.5", "1.0"}
    assert results["0.5"]["docs"] < results["1.0"]["docs"]
    for scale in results.values():
        assert set(scale["builds_s"]) == {"raw FTS5", "ade"}
        assert all(size > 0 for size in scale["size_x"].values())
        assert scale["queries"]["filter-only"].keys() == {"ade"}  # raw FTS5 has no filters
        assert scale["queries"]["phrase"].keys() == {"raw FTS5", "ade"}
    assert "| ade |" in out
    series = json.loads((tmp_path / "series-mb3.json").read_text())
    assert set(series["phrase"]) == {
        f"{s}\x00{p}" for s in ("0.5", "1.0") for p in ("raw FTS5", "ade")
    }
    assert "tantivy" not in out
    # A rerun on the same folder reuses the indexes and their build figures.
    assert bench_peers.main(argv) == 0
    again = json.loads((tmp_path / "results-mb3.json").read_text())
    assert again["1.0"]["builds_s"] == results["1.0"]["builds_s"]


def test_without_tantivy_the_bench_says_so_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "tantivy", None)
    assert bench_peers.main(["--mb", "3"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "pip install -e '.[bench]'" in err


def test_scales_keep_the_session_mix(corpus: Path) -> None:
    docs = load_docs(corpus)
    half = bench_peers.slice_docs(docs, 0.5)
    kinds = {d.kind for d in docs}
    assert {d.kind for d in half} == kinds
    for kind in kinds:
        sessions = {d.session_id for d in docs if d.kind == kind}
        kept = {d.session_id for d in half if d.kind == kind}
        assert len(kept) == -(-len(sessions) // 2)
    # Every document of a kept session is kept: a slice is whole sessions.
    assert [d for d in docs if d.session_id in {h.session_id for h in half}] == half


def test_queries_translate_to_fts5_with_ades_prefix_policy() -> None:
    assert fts5_match(bench_peers._bare("tomen")) == '"tomen"*'
    assert fts5_match(bench_peers._bare("ab cd")) == '"ab"* "cd"*'
    assert fts5_match(bench_peers._bare("t")) == '"t"'  # one character: exact (parser policy)
    assert fts5_match(Spec('"of the"', phrase=("of", "the"))) == '"of the"'
    assert fts5_match(Spec("kind:chat", kind="chat")) is None


def test_rare_terms_have_matches_in_the_band(corpus: Path, tmp_path: Path) -> None:
    raw = RawFts5()
    raw.build(tmp_path / "raw", load_docs(corpus))
    raw.open(tmp_path / "raw")
    vocab = json.loads((corpus / "vocabulary.json").read_text())
    specs = bench_peers.rare_specs(raw, vocab, band=(3, 8))
    assert specs
    assert all(3 <= raw.df(fts5_match(s) or "") <= 8 for s in specs)
    raw.close()
