"""`ade mcp`: a read-only Model Context Protocol server over the search service.

``backend`` picks the client (the daemon when one runs, in process otherwise), ``tools`` answers
each tool as plain JSON-able values (no SDK import: testable and cheap), ``shown`` makes every
text safe to hand to a model and caps it, ``server`` wires the tools to the official ``mcp``
SDK over stdio, ``config`` prints each agent's set-up snippet.
"""
