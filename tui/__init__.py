"""ade-search front ends: the Textual palette, its screens, and the ``ade`` command line."""
