"""docs/agents.md has one table of the agents, true to the code: a row per registered agent in the
registry's order (``engine.agent_table``), the variable that moves its home, what its module says
it hides (``AgentFormat.hidden``) and the command that resumes a session (``AgentFormat.resume``,
or none)."""

from __future__ import annotations

from pathlib import Path

from engine.agent_table import AGENTS, PORTABLE
from engine.external.registry import agent_format

DOC = Path(__file__).resolve().parents[3] / "docs" / "agents.md"
HEADER = "| agent | read from | variable that moves it | hidden | resume |"


def _rows() -> list[list[str]]:
    lines = DOC.read_text().splitlines()
    assert lines.count(HEADER) == 1, "one agent table"
    at = lines.index(HEADER) + 2
    rows: list[list[str]] = []
    while at < len(lines) and lines[at].startswith("| "):
        rows.append([cell.strip() for cell in lines[at].strip().strip("|").split(" | ")])
        at += 1
    return rows


def _plain(text: str) -> str:
    return " ".join(text.replace("`", "").split())


def test_the_table_has_a_row_per_registered_agent_in_the_registrys_order() -> None:
    assert [row[0] for row in _rows()] == [line.label for line in AGENTS]
    assert all(len(row) == 5 for row in _rows())


def test_each_row_says_what_the_code_does() -> None:
    for line, (label, where, variable, hidden, resume) in zip(AGENTS, _rows(), strict=True):
        fmt = agent_format(line.name)
        assert where, label
        assert variable.split()[0].strip("`") == (line.variable or "—"), label
        assert all(f"`{other}`" in variable for other in line.also), label
        assert not line.portable or f"`{PORTABLE}`" in variable, label
        assert _plain(fmt.hidden) in _plain(hidden), label
        if fmt.resume is None:
            assert resume.startswith("none"), label
        else:
            words = _plain(resume).split()
            assert words[0] == fmt.resume[0], label
            assert all(word in words for word in fmt.resume), label


def test_no_other_table_lists_the_agents_places() -> None:
    tables = [
        ln for ln in DOC.read_text().splitlines() if ln.startswith("| ") and "read from" in ln
    ]
    assert tables == [HEADER]
