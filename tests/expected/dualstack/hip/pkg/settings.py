"""Defaults read by the launcher (no torch import here)."""

DEVICE = "cuda"
