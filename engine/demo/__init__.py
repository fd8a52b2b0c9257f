"""The deterministic demo project that the README, snapshot tests and benchmarks use.

``build_demo(dest)`` writes a real git repository (history, branches, linked worktrees) and its
``.ade/`` folder (chats, terminals captured through a PTY, PRs, artifacts). Everything derives from
``DEMO_NOW`` and seeded ``random.Random`` instances, so two builds are byte-identical.
"""

from engine.demo.build import DemoSummary, build_demo
from engine.demo.clock import DEMO_NOW

__all__ = ["DEMO_NOW", "DemoSummary", "build_demo"]
