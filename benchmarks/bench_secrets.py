"""Secret redaction at the breadth of a real scanner (docs/redaction.md): coverage, false positives, cost.

    python -m benchmarks.bench_secrets [--fzf GITDIR] [--git GITDIR] [--mb 8] [--runs 5]

- gitleaks coverage: every rule's true-positive examples (``benchmarks/data/gitleaks_examples.json``,
  pulled from gitleaks' rule generators by ``gen_redaction_formats.py``), each given to
  ``redact_secrets`` as a text of its own: a rule is covered when the secret gitleaks finds in
  every one of its examples is gone from the output. The secret alone (a bare token, no
  ``key =`` around it) is counted too: rules that need an identifier cannot be covered that way.
- false positives: gitleaks' false-positive examples, counted when the rule they were written for
  redacts them (what gitleaks promises) and when anything is redacted;
- real code: every line of every text file of fzf and git (git mirrors, ``HEAD``), redacted file by
  file; every line that changes is a false positive (printed);
- cost: CPU of the ingestion pipeline's steps over the same texts (a terminal log and the real-code
  corpus as transcript text: chunk + sanitize + redact + identifier parts + derived columns) with
  main's redaction and with this one, interleaved rounds, medians.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import apsw

from benchmarks.bench_chunking import ansi_log
from benchmarks.bench_ingest import _chunk_texts
from benchmarks.timing import interleaved
from engine.index import documents as index_documents
from engine.index.identifiers import identifier_parts
from engine.ingest.docs import chunk_doc
from engine.redaction import redact_secrets
from engine.redaction.formats import FORMATS, GITLEAKS_VERSION
from engine.redaction.scan import find_secrets

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "benchmarks" / "data" / "gitleaks_examples.json"
MIRRORS = Path("/work/.mirror")
SOURCE_SUFFIXES = (
    ".c", ".h", ".go", ".sh", ".rb", ".py", ".pl", ".perl", ".tcl", ".txt", ".adoc", ".md",
    ".vim", ".fish", ".bash", ".zsh", ".el", ".awk", ".sed", ".yml", ".yaml", ".json", ".mak",
    ".po", ".css", ".js", ".html", ".el", "Makefile",
)  # fmt: skip


def gitleaks_coverage() -> dict[str, Any]:
    rules = json.loads(EXAMPLES.read_text())["rules"]
    known = {f.rule_id for f in FORMATS}
    covered, bare, fp_same, fp_any, fp_total, missed = 0, 0, 0, 0, 0, []
    with_tps = 0
    for rule_id, examples in sorted(rules.items()):
        secrets = []
        for example in examples["tps"]:
            found = [text for s, e, r in find_secrets(example) if r == rule_id for text in
                     [example[s:e]]]  # fmt: skip
            secrets.append((example, found[0] if found else None))
        if not secrets or rule_id not in known:
            continue
        with_tps += 1
        ok = all(s is not None and s not in redact_secrets(ex) for ex, s in secrets)
        covered += ok
        if not ok:
            missed.append(rule_id)
        bare += all(s is not None and s not in redact_secrets(s) for _, s in secrets)
        for example in examples["fps"]:
            fp_total += 1
            fp_same += any(r == rule_id for _, _, r in find_secrets(example))
            fp_any += redact_secrets(example) != example
    return {"gitleaks": GITLEAKS_VERSION, "rules_with_examples": with_tps, "covered": covered,
            "covered_pct": round(100 * covered / with_tps, 1), "bare_secret_covered": bare,
            "missed": missed, "fp_examples": fp_total, "fp_redacted_by_their_rule": fp_same,
            "fp_redacted_by_any_rule": fp_any}  # fmt: skip


def source_files(git_dir: Path) -> dict[str, str]:
    """Path → text of every source-like file at HEAD (UTF-8, undecodable bytes replaced)."""
    listing = subprocess.run(["git", f"--git-dir={git_dir}", "ls-tree", "-r", "--name-only",
                              "HEAD"], check=True, capture_output=True, text=True).stdout.split()  # fmt: skip
    names = [n for n in listing if n.endswith(SOURCE_SUFFIXES) or "/" not in n]
    blobs = subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "--batch"],
                           input="".join(f"HEAD:{n}\n" for n in names).encode(),
                           check=True, capture_output=True).stdout  # fmt: skip
    files, pos = {}, 0
    for name in names:
        header_end = blobs.index(b"\n", pos)
        header = blobs[pos:header_end].split()
        if header[-1] == b"missing":
            pos = header_end + 1
            continue
        size = int(header[2])
        body = blobs[header_end + 1 : header_end + 1 + size]
        pos = header_end + 1 + size + 1
        if b"\0" not in body[:8000]:
            files[name] = body.decode("utf-8", "replace")
    return files


def real_code_false_positives(corpora: dict[str, Path]) -> dict[str, Any]:
    lines = changed = 0
    shown = []
    for label, git_dir in corpora.items():
        for name, text in source_files(git_dir).items():
            original = text.split("\n")
            lines += len(original)
            redacted = redact_secrets(text).split("\n")
            if redacted == original:
                continue
            if len(redacted) != len(original):  # a block redacted across lines
                redacted = [redact_secrets(line) for line in original]
            for number, (before, after) in enumerate(zip(original, redacted, strict=True), 1):
                if before != after:
                    changed += 1
                    shown.append(f"{label}:{name}:{number}: {after[:160]}")
    return {"lines": lines, "false_positives": changed, "shown": shown}


def main_redaction() -> Callable[[str], str]:
    """``redact_secrets`` as it is on ``main``: its two modules loaded under other names."""

    def show(path: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), "show", f"main:{path}"], check=True,
                              capture_output=True, text=True).stdout  # fmt: skip

    rules = types.ModuleType("main_redaction_rules")
    sys.modules[rules.__name__] = rules
    exec(compile(show("engine/redaction/rules.py"), "main:redaction_rules", "exec"), rules.__dict__)
    source = show("engine/redaction/__init__.py").replace(
        "engine.redaction.rules", "main_redaction_rules"
    )
    module = types.ModuleType("main_redaction")
    sys.modules[module.__name__] = module
    exec(compile(source, "main:redaction", "exec"), module.__dict__)
    rules.scan_literals_in_one_pass()
    function: Callable[[str], str] = module.redact_secrets
    return function


def ingestion_cost(mb: int, runs: int, code: list[str]) -> dict[str, Any]:
    """Ingestion pipeline CPU (chunk + sanitize + redact + identifier parts + derived columns +
    FTS5 insert) per text set, with main's redaction, this redaction and none, interleaved. (The
    real ingester runs these steps across a planning process and the writer, so patching its
    redaction in this process would not reach all of it: the steps are run here instead.)"""
    from engine.redaction import scan_literals_in_one_pass

    scan_literals_in_one_pass()
    old = main_redaction()
    data = ansi_log(mb * 1024 * 1024)
    results: dict[str, Any] = {}
    code_texts = ["\n".join(code[i : i + 60]) for i in range(0, len(code), 60)]
    for name, make_texts in (("terminal log", lambda: _chunk_texts(data)),
                             ("real code as transcript", lambda: list(code_texts))):  # fmt: skip

        def pipeline(
            redact: Callable[[str], str], make: Callable[[], list[str]] = make_texts
        ) -> None:
            bodies = [redact(t) for t in make()]
            for body in bodies:
                identifier_parts("bench t1", body)
            docs = [chunk_doc("t1", i, b, "bench t1", None, 0) for i, b in enumerate(bodies)]
            index_documents.PreparedDocs(docs)
            conn = apsw.Connection(":memory:")
            conn.execute("CREATE VIRTUAL TABLE raw USING fts5(body)")
            with conn:
                conn.executemany("INSERT INTO raw(body) VALUES (?)", ((b,) for b in bodies))
            conn.close()

        timings = interleaved({"none": lambda: pipeline(str), "main": lambda: pipeline(old),
                               "new": lambda: pipeline(redact_secrets)}, runs)  # fmt: skip
        cpu = {k: round(t.cpu_median, 1) for k, t in timings.items()}
        results[name] = {
            "cpu_ms": cpu,
            "redaction_share_main_pct": round(100 * (cpu["main"] - cpu["none"]) / cpu["main"], 1),
            "redaction_share_new_pct": round(100 * (cpu["new"] - cpu["none"]) / cpu["new"], 1),
            "new_over_main": round(cpu["new"] / cpu["main"], 3),
        }
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fzf", type=Path, default=MIRRORS / "junegunn+fzf" / "repo")
    parser.add_argument("--git", type=Path, default=MIRRORS / "git+git" / "repo")
    parser.add_argument("--mb", type=int, default=8)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--skip-cost", action="store_true")
    options = parser.parse_args()
    coverage = gitleaks_coverage()
    print(json.dumps(coverage, indent=1))
    fps = real_code_false_positives({"fzf": options.fzf, "git": options.git})
    for line in fps.pop("shown"):
        print("FP", line)
    print(json.dumps(fps))
    if not options.skip_cost:
        code = [line for f in source_files(options.git).values() for line in f.split("\n")]
        print(json.dumps(ingestion_cost(options.mb, options.runs, code[:200_000]), indent=1))


if __name__ == "__main__":
    main()
