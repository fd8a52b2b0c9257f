"""The query room: the query language, the plan every source reads, ranking, snippets, cursors,
and the query path that runs a plan against the index and the delegated sources."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)
