"""Agent transcripts that live outside ``.ade/``: Claude Code and Codex CLI, read in place."""
