"""The terminal-text room: sanitizing raw PTY bytes, chunking, blocks, OSC 133 marks, recording."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)
