"""Sources asked at query time instead of indexed (DESIGN §5): lanes, files, artifacts, Linear."""
