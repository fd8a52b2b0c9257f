"""No circles, no loops back up (ARCHITECTURE.md, import rules).

The graph's nodes are the rooms: each ``engine`` subpackage (``engine.query``, ``engine.rpc``…)
and each top-level ``engine`` module (``engine.actions``…) is one node, and each ``tui`` module
is one node. An edge is any import between two different nodes, deferred ones included. A cycle
means two rooms cannot be understood (or changed) one without the other.
"""

from __future__ import annotations

from collections import defaultdict

from tests.architecture.imports import Import, imports_of


def room(module: str) -> str | None:
    """The node a module belongs to, or None outside ``engine``/``tui`` (stdlib, textual…)."""
    parts = module.split(".")
    if parts[0] == "tui":
        return module
    if parts[0] == "engine":
        return ".".join(parts[:2])
    return None


def import_graph() -> dict[str, dict[str, Import]]:
    graph: dict[str, dict[str, Import]] = defaultdict(dict)
    for package in ("engine", "tui"):
        for imp in imports_of(package):
            source, target = room(imp.source), room(imp.target)
            if source is not None and target is not None and source != target:
                graph[source].setdefault(target, imp)
    return graph


def cycles(graph: dict[str, dict[str, Import]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, {}):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_room_graph_has_no_cycle() -> None:
    graph = import_graph()
    problems = []
    for component in cycles(graph):
        members = set(component)
        edges = [
            f"    {src} -> {dst}  ({imp.where})"
            for src in component
            for dst, imp in sorted(graph[src].items())
            if dst in members
        ]
        problems.append(" <-> ".join(component) + "\n" + "\n".join(edges))
    assert not problems, "import cycles:\n" + "\n".join(problems)


def test_the_cycle_finder_sees_a_loop() -> None:
    here = Import("a", "b", "x:1")
    graph = {"a": {"b": here}, "b": {"c": here}, "c": {"a": here}, "d": {"a": here}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_graph_holds_deferred_imports() -> None:
    # tui.commands.search imports tui.search_run inside a function (so --help stays instant):
    # that edge must be in the graph, or a circle through it would go unseen.
    assert "tui.search_run" in import_graph()["tui.commands.search"]
