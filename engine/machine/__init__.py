"""Searching from anywhere: every project ade knows on this machine, each through its own index."""
