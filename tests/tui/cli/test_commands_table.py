"""Every command the CLI offers ships with it: ``ade`` no longer hides a command whose module is
missing (that fallback was for a build without some modules), so a missing one must fail here."""

from __future__ import annotations

import argparse
import importlib

import pytest

from tui.cli import COMMANDS


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_module_configures_a_parser_and_runs(name: str) -> None:
    module = importlib.import_module(COMMANDS[name][0])
    parser = argparse.ArgumentParser(prog=f"ade {name}")
    module.configure(parser)
    assert callable(module.run)
