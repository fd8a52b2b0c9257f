"""Reading a project's ``.ade/`` folder and its git history (DESIGN §2).

Writers append; this package only reads. Malformed input is skipped and counted in a
``WarningTally``, never raised to the caller.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)
