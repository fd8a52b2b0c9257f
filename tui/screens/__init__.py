"""Screens of the palette app: one per module."""
