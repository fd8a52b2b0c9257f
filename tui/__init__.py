"""ade-search front ends: the Textual palette, its screens, and the ``ade`` command line."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)
