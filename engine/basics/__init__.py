"""Small shared basics: the clock, the caller's environment, logging, digests, text helpers and
the pretty JSON of ``.ade/`` files."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)
