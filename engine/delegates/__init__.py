"""Sources asked at query time instead of indexed (DESIGN §5): lanes, files, artifacts, Linear."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)
