"""One module per ``ade`` sub-command: ``configure(parser)`` and ``run(args) -> int``.

Modules are imported only when their command runs, so ``ade search`` never pays for Textual.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)
