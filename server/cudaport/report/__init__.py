"""`cudaport report`: the migration assessment — how hard the port is, where, by which route, at what effort, and
to which target.

Built from the engine's findings for each target, one file at a time (`assess`: `engine.runner.scan`'s stream
feeding a `ReportBuilder`), rendered as JSON, Markdown or one self-contained HTML page. May import: engine and
below (never rewrite)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.runner import Progress, scan
from ..knowledge.ruleset import RuleSet
from ..project.config import Settings
from .html import render_html
from .markdown import render_markdown
from .model import Report, ReportBuilder
from .render_json import iter_json
from .routes import DualStackCovers, covered_by_dual_stack_fix

if TYPE_CHECKING:
    from ..engine.resultcache import ResultCache

FORMATS = ("html", "md", "json")
_SUFFIXES = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md", ".json": "json"}


def format_for(path: Path) -> str | None:
    """The format an output file's suffix asks for, None when the suffix says nothing."""
    return _SUFFIXES.get(path.suffix.lower())


def assess(
    paths: Sequence[str],
    settings: Settings,
    targets: Sequence[str],
    ruleset: RuleSet,
    jobs: int = 1,
    progress: Progress | None = None,
    dual_stack: DualStackCovers | None = covered_by_dual_stack_fix,
    cache: ResultCache | None = None,
) -> Report:
    """Analyse `paths` for every target and build the report as each file's results arrive. `dual_stack` tells
    which findings `fix --style dual-stack` covers, for route C's files (by default, those with a dual-stack fix
    from the engine; None: the report does not say)."""
    builder = ReportBuilder(ruleset, settings, targets, paths, dual_stack=dual_stack)
    stream = scan(list(paths), settings, targets, jobs=jobs, progress=progress, line_text=True, cache=cache)
    for label, reason in stream.skipped:
        builder.skip(label, reason)
    for label, reason in stream.errors:
        builder.error(label, reason)
    for label, reason in stream.excluded:
        builder.exclude(label, reason)
    # The stream gives each file's results one per target, one after the other.
    for _, results in itertools.groupby(stream, key=lambda result: result.path):
        builder.add(list(results))
    return builder.finish()


def iter_render(report: Report, fmt: str) -> Iterator[str]:
    """The report in `fmt`, in pieces (the JSON, which lists every finding, is never one string)."""
    if fmt == "json":
        yield from iter_json(report)
    elif fmt == "html":
        yield render_html(report)
    elif fmt == "md":
        yield render_markdown(report)
    else:
        raise ValueError(f"unknown report format {fmt!r} (expected one of: {', '.join(FORMATS)})")


def render(report: Report, fmt: str) -> str:
    return "".join(iter_render(report, fmt))


__all__ = ["FORMATS", "Report", "ReportBuilder", "assess", "format_for", "iter_render", "render"]
