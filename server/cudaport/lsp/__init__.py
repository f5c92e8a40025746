"""The cudaport language server (LSP over stdio, pygls 2.x): diagnostics as you type, quick fixes, hover. Feature
modules (diagnostics, code_actions, hover, commands, ...) over one shared store, each handler given a snapshot of
it; stdio and the prelude serve the first diagnostics before pygls is loaded. May import: report, rewrite, engine
and below."""

from __future__ import annotations
