"""A training toolkit that runs on several accelerators (a fixture: dual-stack code that must be left alone)."""
