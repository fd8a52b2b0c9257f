"""Writers that bring outside data into a project's ``.ade/`` folder (docs/projects.md).

Recordings (asciicast, ``script``, tmux logs) become terminal sessions; ``gh`` output becomes PR
snapshots. Every file is written atomically (temp file + rename) so a reader never sees half of
one, and ids are derived from content so a re-import is idempotent.
"""
