"""Small shared basics: the clock, the caller's environment, logging, digests and text helpers."""
