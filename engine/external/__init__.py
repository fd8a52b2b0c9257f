"""Agent transcripts that live outside ``.ade/``: Claude Code and Codex CLI, read in place."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)
