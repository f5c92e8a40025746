"""Output formats for `check`: text, json, github, sarif, and the --statistics tables."""

from __future__ import annotations

FORMATS = ("text", "json", "github", "sarif")
