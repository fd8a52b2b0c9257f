"""The ingest room: sources read into the index on one writer thread.

The queue (``queue``: one entry per source, a kind's debounce), the serialized drain that owns
the writer connection (``drain``), the per-source passes (chats and terminals in ``transcripts``
and ``tailing``, agents' transcripts in ``external_pass``/``external_derive``, PRs and git in
``records``, the commit history in ``history``), the reconcile that finds changed sources
(``reconcile``, skipped by the warm-run ``manifest``), the planning worker for big backlogs
(``planner``, ``plan_worker``, ``plan_wire``), the index health check (``health``) and the
watcher (``watcher``, ``watch_plan``).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)
