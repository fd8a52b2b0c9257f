"""The deterministic demo project that the README, snapshot tests and benchmarks use.

``build_demo(dest)`` writes a real git repository (history, branches, linked worktrees) and its
``.ade/`` folder (chats, terminals captured through a PTY, PRs, artifacts). Everything derives from
``DEMO_NOW`` (or the ``now`` it is given: ``ade demo`` passes midnight UTC of the build day) and
seeded ``random.Random`` instances, so two builds with one ``now`` are byte-identical.
"""

from engine.demo.build import DemoSummary, build_demo
from engine.demo.clock import DEMO_NOW, build_day

__all__ = ["DEMO_NOW", "DemoSummary", "build_day", "build_demo"]
