"""Small shared basics: the clock, the caller's environment, logging, digests, text helpers and
the pretty JSON of ``.ade/`` files."""
