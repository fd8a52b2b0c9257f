"""Pure palette logic: no Textual, no database — plain functions over frozen records.

Everything here is unit-tested with parametrized tables (``tests/tui/test_logic_*.py``); the screens
only call these functions and paint what they return.
"""
