"""Inline SVG bar charts: grouped, stacked by difficulty, drawn as plain markup (no script, no fonts, no network).

Every segment carries its numbers as data attributes (`data-count`, `data-difficulty`, ...), so a reader, a test or
another tool can check what is drawn against the JSON report."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape

from ..models import Difficulty
from .tally import DIFFICULTIES, Tally

COLORS = {
    Difficulty.PORTABLE: "#9aa5b1",
    Difficulty.MECHANICAL: "#2f80c8",
    Difficulty.MANUAL: "#e69a1c",
    Difficulty.BLOCKER: "#c62f2f",
}

ROW = 16  # bar height
BAR_GAP = 3  # between the bars of one group
GROUP_GAP = 10  # between groups
GROUP_LABEL = 210  # width of the group label column
LABEL_CHARS = 29  # what fits in it at the chart's font size
BAR_LABEL = 64  # width of the per-bar label column (several bars in a group)
VALUE = 110  # room for the value written after the bar
LEGEND = 26  # height of the legend line
WIDTH = 880


@dataclass
class Bar:
    label: str  # a target's label, or what the bar measures ("findings", "files")
    tally: Tally
    attrs: Mapping[str, str] = field(default_factory=dict)  # extra data-* attributes, on the bar and its segments
    unit: str = "findings"


@dataclass
class Group:
    name: str  # what the group stands for (a directory, an API), carried in `data-group`
    bars: list[Bar]
    label: str = ""  # what is written beside it, when shorter than the name

    @property
    def shown(self) -> str:
        return self.label or self.name


def stacked_bars(chart_id: str, title: str, groups: Sequence[Group], share: bool = False) -> str:
    """A horizontal bar per entry of each group, its segments the counts per difficulty. With `share`, every bar
    spans the full width (shares of its own total); otherwise bars share one scale (the largest total)."""
    many = any(len(g.bars) > 1 for g in groups)
    bar_x = GROUP_LABEL + (BAR_LABEL if many else 0)
    area = WIDTH - bar_x - VALUE
    largest = max((b.tally.total for g in groups for b in g.bars), default=0)
    parts: list[str] = []
    y = LEGEND + 6
    for group in groups:
        top = y
        for index, bar in enumerate(group.bars):
            parts.append(_bar(chart_id, group, bar, bar_x, y, area, largest, share, many))
            if many:
                parts.append(_text(GROUP_LABEL + 4, y + ROW - 4, bar.label, "bar-label"))
            y += ROW + (BAR_GAP if index < len(group.bars) - 1 else 0)
        middle = (top + y) / 2 + 4
        parts.append(
            _text(GROUP_LABEL - 8, middle, _shorten(group.shown, LABEL_CHARS), "group-label", "end", group.name)
        )
        y += GROUP_GAP
    height = y + 4
    legend = _legend()
    body = "".join(parts)
    title_id = f"{chart_id}-title"
    return (
        f'<svg class="chart" id="{escape(chart_id)}" xmlns="http://www.w3.org/2000/svg" role="img" '
        f'aria-labelledby="{title_id}" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" '
        f'data-chart="{escape(chart_id)}" data-mode="{"share" if share else "count"}">'
        f'<title id="{title_id}">{escape(title)}</title>{legend}{body}</svg>'
    )


def _bar(
    chart_id: str, group: Group, bar: Bar, x: int, y: int, area: int, largest: int, share: bool, many: bool
) -> str:
    total = bar.tally.total
    scale_total = total if share else largest
    attrs = "".join(f' data-{escape(k)}="{escape(v)}"' for k, v in bar.attrs.items())
    out = [
        f'<g class="bar" data-chart="{escape(chart_id)}" data-group="{escape(group.name)}" '
        f'data-bar="{escape(bar.label)}" data-total="{total}"{attrs}>'
    ]
    offset = 0.0
    for difficulty in DIFFICULTIES:
        count = bar.tally[difficulty]
        if not count:
            continue
        width = area * count / scale_total if scale_total else 0.0
        tip = f"{group.name} · {bar.label}: {count} {difficulty.label} of {total} {bar.unit}"
        out.append(
            f'<rect x="{x + offset:.2f}" y="{y}" width="{width:.2f}" height="{ROW}" fill="{COLORS[difficulty]}" '
            f'data-difficulty="{difficulty.label}" data-count="{count}"><title>{escape(tip)}</title></rect>'
        )
        offset += width
    if not total:
        out.append(f'<rect x="{x}" y="{y}" width="1" height="{ROW}" fill="#d0d5db"/>')
    end = x + (area if share else offset) + 6
    value = f"{total} {bar.unit}"
    out.append(_text(end, y + ROW - 4, value, "value"))
    out.append("</g>")
    return "".join(out)


def _legend() -> str:
    parts = ['<g class="legend">']
    x = GROUP_LABEL
    for difficulty in DIFFICULTIES:
        parts.append(f'<rect x="{x}" y="6" width="12" height="12" fill="{COLORS[difficulty]}"/>')
        parts.append(_text(x + 16, 16, difficulty.label, "legend-label"))
        x += 24 + 7 * len(difficulty.label) + 14
    parts.append("</g>")
    return "".join(parts)


def _text(x: float, y: float, text: str, css: str, anchor: str = "start", full: str | None = None) -> str:
    tip = f"<title>{escape(full)}</title>" if full is not None and full != text else ""
    return f'<text x="{x:.1f}" y="{y:.1f}" class="{css}" text-anchor="{anchor}">{tip}{escape(text)}</text>'


def _shorten(text: str, limit: int) -> str:
    """A long path keeps its first folder and as much of its end as fits (`csrc/…/attn/gemm`), so that paths
    that end alike stay apart; anything else keeps its end."""
    if len(text) <= limit:
        return text
    parts = text.split("/")
    if len(parts) > 2:
        tail: list[str] = []
        for part in reversed(parts[1:]):
            candidate = "/".join([parts[0], "…", part, *tail])
            if len(candidate) > limit:
                break
            tail.insert(0, part)
        if tail:
            return "/".join([parts[0], "…", *tail])
    return "…" + text[-(limit - 1) :]
