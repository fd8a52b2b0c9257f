"""Widgets of the palette: one per module."""
