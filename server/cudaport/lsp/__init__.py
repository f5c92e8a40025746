"""The cudaport language server (LSP over stdio, pygls 2.x): diagnostics as you type, quick fixes, hover."""

from __future__ import annotations
