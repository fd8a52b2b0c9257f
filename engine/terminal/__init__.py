"""The terminal-text room: sanitizing raw PTY bytes, chunking, blocks, OSC 133 marks, recording."""
