"""Inline SVG bar charts: grouped, stacked by difficulty, drawn as plain markup (no script, no fonts, no network).

Every segment carries its numbers as data attributes (`data-count`, `data-difficulty`, ...), so a reader, a test or
another tool can check what is drawn against the JSON report. The label columns are as wide as their longest label
needs (up to a limit); a longer label is abbreviated, with the whole of it in its tooltip, so no label runs into a
bar."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from html import escape

from ..i18n import N_, t
from ..model.findings import Difficulty
from ..model.records import field, record
from ..model.words import difficulty_word
from .tally import DIFFICULTIES, Tally
from .words import number

COLORS = {
    Difficulty.PORTABLE: "#9aa5b1",
    Difficulty.MECHANICAL: "#2f80c8",
    Difficulty.MANUAL: "#e69a1c",
    Difficulty.BLOCKER: "#c62f2f",
}

ROW = 16  # bar height
BAR_GAP = 3  # between the bars of one group
GROUP_GAP = 10  # between groups
GROUP_FONT = 12  # px, the group labels (the stylesheet sets the same)
SMALL_FONT = 11  # px, bar labels, values and the legend
GROUP_LABEL_MAX = 280  # widest group label column
BAR_LABEL_MAX = 150  # widest per-bar label column
GAP = 8  # between a label and what follows it
LEGEND = 26  # height of the legend line
WIDTH = 880
# What a bar counts, as its value is written ("173 findings"); a unit not listed is written after the number.
UNITS = {"findings": N_("{count} findings"), "files": N_("{count} files"), "uses": N_("{count} uses")}


@record
class Bar:
    label: str  # a target's label, or what the bar measures ("findings", "files"), as the page shows it
    tally: Tally
    attrs: Mapping[str, str] = field(default_factory=dict)  # extra data-* attributes, on the bar and its segments
    unit: str = "findings"  # a key of UNITS


@record
class Group:
    name: str  # what the group stands for (a directory, an API), carried in `data-group`
    bars: list[Bar]
    label: str = ""  # what is written beside it, when shorter than the name

    @property
    def shown(self) -> str:
        return self.label or self.name


def text_width(text: str, font: float) -> float:
    """A generous estimate of `text`'s width in a sans-serif font of `font` px: wide enough for common UI fonts
    (the layout must never let a label reach a bar, so it errs wide)."""
    width = 0.0
    for char in text:
        if unicodedata.east_asian_width(char) in ("W", "F"):
            width += 1.0
        elif char in "ijlft.,:;|!'`()[]{} /-":
            width += 0.4
        elif char in "mwMW@%":
            width += 1.0
        elif char.isupper() or char in "_#&~":
            width += 0.78
        else:  # DejaVu Sans, a common fallback, sets lower-case letters and digits at 0.52-0.64 em
            width += 0.64
    return width * font


_SLACK = 1e-6  # px: a width summed in another order is the same width


def fit(text: str, room: float, font: float) -> str:
    """`text`, abbreviated until it fits in `room` px: a path keeps its first folder and as much of its end as
    fits (`Samples/…/simpleCUFFT`), anything else keeps its start."""
    if text_width(text, font) <= room + _SLACK:
        return text
    parts = text.split("/")
    if len(parts) > 2:
        tail: list[str] = []
        for part in reversed(parts[1:]):
            candidate = "/".join([parts[0], "…", part, *tail])
            if text_width(candidate, font) > room:
                break
            tail.insert(0, part)
        if tail:
            return "/".join([parts[0], "…", *tail])
    cut = text
    while cut and text_width(cut + "…", font) > room:
        cut = cut[:-1]
    return cut + "…"


def stacked_bars(chart_id: str, title: str, groups: Sequence[Group], share: bool = False) -> str:
    """A horizontal bar per entry of each group, its segments the counts per difficulty. With `share`, every bar
    spans the full width (shares of its own total); otherwise bars share one scale (the largest total)."""
    many = any(len(g.bars) > 1 for g in groups)
    # Each label column is as wide as its widest label (up to its limit), and a label is fitted to that same
    # width: one that set the width is never the one cut short.
    group_room = min(GROUP_LABEL_MAX, max((text_width(g.shown, GROUP_FONT) for g in groups), default=0))
    group_column = group_room + GAP
    bar_room = 0.0
    bar_column = 0.0
    if many:
        bar_room = min(BAR_LABEL_MAX, max((text_width(b.label, SMALL_FONT) for g in groups for b in g.bars), default=0))
        bar_column = bar_room + GAP
    value_column = max((text_width(_value(b), SMALL_FONT) for g in groups for b in g.bars), default=0) + GAP
    bar_x = round(group_column + bar_column)
    area = float(max(round(WIDTH - bar_x - value_column), 100))
    largest = max((b.tally.total for g in groups for b in g.bars), default=0)
    parts: list[str] = []
    y = LEGEND + 6
    for group in groups:
        top = y
        for index, bar in enumerate(group.bars):
            parts.append(_bar(chart_id, group, bar, bar_x, y, area, largest, share))
            if many:
                shown = fit(bar.label, bar_room, SMALL_FONT)
                parts.append(_text(group_column, y + ROW - 4, shown, "bar-label", full=bar.label))
            y += ROW + (BAR_GAP if index < len(group.bars) - 1 else 0)
        middle = (top + y) / 2 + 4
        shown = fit(group.shown, group_room, GROUP_FONT)
        parts.append(_text(group_column - GAP, middle, shown, "group-label", "end", group.name))
        y += GROUP_GAP
    height = y + 4
    title_id = f"{chart_id}-title"
    return (
        f'<svg class="chart" id="{escape(chart_id)}" xmlns="http://www.w3.org/2000/svg" role="img" '
        f'aria-labelledby="{title_id}" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" '
        f'data-chart="{escape(chart_id)}" data-mode="{"share" if share else "count"}">'
        f'<title id="{title_id}">{escape(title)}</title>{_legend(group_column)}{"".join(parts)}</svg>'
    )


def _value(bar: Bar) -> str:
    """'173 findings', in the active language."""
    template = UNITS.get(bar.unit)
    return t(template, count=number(bar.tally.total)) if template else f"{number(bar.tally.total)} {bar.unit}"


def _bar(chart_id: str, group: Group, bar: Bar, x: float, y: int, area: float, largest: int, share: bool) -> str:
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
        tip = t(
            "{group} · {bar}: {count} {difficulty} of {value}",
            group=group.name,
            bar=bar.label,
            count=number(count),
            difficulty=difficulty_word(difficulty),
            value=_value(bar),
        )
        out.append(
            f'<rect x="{x + offset:.2f}" y="{y}" width="{width:.2f}" height="{ROW}" fill="{COLORS[difficulty]}" '
            f'data-difficulty="{difficulty.label}" data-count="{count}"><title>{escape(tip)}</title></rect>'
        )
        offset += width
    if not total:
        out.append(f'<rect x="{x:.2f}" y="{y}" width="1" height="{ROW}" fill="#d0d5db"/>')
    end = x + (area if share else offset) + GAP
    out.append(_text(end, y + ROW - 4, _value(bar), "value"))
    out.append("</g>")
    return "".join(out)


def _legend(x: float) -> str:
    parts = ['<g class="legend">']
    for difficulty in DIFFICULTIES:
        parts.append(f'<rect x="{x:.1f}" y="6" width="12" height="12" fill="{COLORS[difficulty]}"/>')
        name = difficulty_word(difficulty)
        parts.append(_text(x + 16, 16, name, "legend-label"))
        x += 16 + text_width(name, SMALL_FONT) + 18
    parts.append("</g>")
    return "".join(parts)


def _text(x: float, y: float, text: str, css: str, anchor: str = "start", full: str | None = None) -> str:
    tip = f"<title>{escape(full)}</title>" if full is not None and full != text else ""
    return f'<text x="{x:.1f}" y="{y:.1f}" class="{css}" text-anchor="{anchor}">{tip}{escape(text)}</text>'
