"""The links room: ``ade://`` deep links (building, parsing), their targets, and detail context."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)
