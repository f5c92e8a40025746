"""`cudaport report`: the migration assessment — how hard the port is, where, and to which target.

Built from the engine's findings for each target (`runner.check_targets`), rendered as JSON, Markdown or one
self-contained HTML page."""

from __future__ import annotations

from pathlib import Path

from .html import render_html
from .markdown import render_markdown
from .model import Report, build_report
from .render_json import render_json

FORMATS = ("html", "md", "json")
_SUFFIXES = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md", ".json": "json"}


def format_for(path: Path) -> str | None:
    """The format an output file's suffix asks for, None when the suffix says nothing."""
    return _SUFFIXES.get(path.suffix.lower())


def render(report: Report, fmt: str) -> str:
    if fmt == "html":
        return render_html(report)
    if fmt == "md":
        return render_markdown(report)
    if fmt == "json":
        return render_json(report)
    raise ValueError(f"unknown report format {fmt!r} (expected one of: {', '.join(FORMATS)})")


__all__ = ["FORMATS", "Report", "build_report", "format_for", "render"]
