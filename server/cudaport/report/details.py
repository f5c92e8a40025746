"""The HTML report's details, embedded in the page as one compressed block: every finding (grouped by API and by
file), every file, folder and API row beyond those the page shows at first. The page's script inflates it with the
browser's DecompressionStream when a reader opens a group, so the page stays one offline file of bounded size.

Format (JSON, then zlib's deflate, then base64): lists of plain values, positions instead of keys, strings once."""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Iterator, Mapping
from typing import Any

from ..model.findings import Difficulty
from .folders import Folder
from .model import ApiUse, Availability, Report, WorkGroup
from .rows import FileRow
from .tally import Tally

FORMAT_VERSION = 1


def tally_list(tally: Tally) -> list[int]:
    """[blocker, manual, mechanical, portable], the order every table shows."""
    return [
        tally[Difficulty.BLOCKER],
        tally[Difficulty.MANUAL],
        tally[Difficulty.MECHANICAL],
        tally[Difficulty.PORTABLE],
    ]


def availability_list(availability: Availability) -> list[Any]:
    """[worst difficulty (-1: unused), the counterpart offered most, blocker, manual, mechanical, portable]."""
    worst = availability.uses.worst
    top = availability.replacements.most_common(1)
    return [int(worst) if worst is not None else -1, top[0][0] if top else "", *tally_list(availability.uses)]


def payload(report: Report) -> dict[str, Any]:
    """The details as the page's script reads them (its "rows" a generator: `encode` consumes it once)."""
    names = report.target_names
    store = report.store
    files = [f for f in report.files if f.stored >= 0]
    work_of_group = [-1] * len(report.apis)
    for index, group in enumerate(report.work):
        for member in group.members:
            work_of_group[member] = index
    return {
        "format": FORMAT_VERSION,
        "targets": names,
        "labels": [report.label(t) for t in names],
        "hoursPerDay": report.effort.hours_per_day,
        "strings": store.strings.values,
        # files with findings, heaviest first: [path, lines, tallies per target, routes per target, store index,
        # effort hours [low, high] per target]
        "files": [_file(f, names) for f in files],
        # a file's findings by its store index: [line, column, group, difficulty digits per target, messages];
        # produced as the JSON is written, never all at once
        "rows": (list(store.compact_rows(i)) for i in range(len(store.paths))),
        "workOfGroup": work_of_group,
        "groupNames": [api.symbol for api in report.apis],  # by group id: the name (a kernel's, a construct's)
        "work": [_work(w, names) for w in report.work],
        "apis": [_api(a, names) for a in report.api_names()],
        "folders": _folder(report.folders, names),
    }


def encode(data: Mapping[str, Any]) -> str:
    """JSON, deflated (zlib's format, which DecompressionStream('deflate') reads), as base64 text."""
    compressor = zlib.compressobj(9)
    chunks = [compressor.compress(piece.encode("utf-8")) for piece in _json_pieces(data)]
    chunks.append(compressor.flush())
    return base64.b64encode(b"".join(chunks)).decode("ascii")


def _json_pieces(data: Mapping[str, Any]) -> Iterator[str]:
    """The JSON text key by key and list item by list item, so neither the text nor the rows (the bulk, given as
    a generator) are ever whole in memory."""
    yield "{"
    for index, (key, value) in enumerate(data.items()):
        yield ("," if index else "") + json.dumps(key) + ":"
        if isinstance(value, (list, Iterator)):
            yield "["
            for position, item in enumerate(value):
                yield ("," if position else "") + json.dumps(item, ensure_ascii=False, separators=(",", ":"))
            yield "]"
        else:
            yield json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    yield "}"


def _file(row: FileRow, names: list[str]) -> list[Any]:
    return [
        row.path,
        row.lines,
        [tally_list(row.findings[t]) for t in names],
        "".join(row.route[t] or "-" for t in names),
        row.stored,
        [[round(row.effort[t].low, 2), round(row.effort[t].high, 2)] for t in names],
    ]


def _work(group: WorkGroup, names: list[str]) -> list[Any]:
    """[title, construct, family, rule, uses, files, availability per target, names it stands for (0: one name of
    its own or a construct), its first names]."""
    return [
        group.title,
        group.pattern,
        group.family,
        group.rule,
        group.uses,
        group.files,
        [availability_list(group.targets[t]) for t in names],
        group.names if group.declarations else 0,
        list(group.symbols[:3]) if group.declarations else [],
    ]


def _api(api: ApiUse, names: list[str]) -> list[Any]:
    return [api.symbol, api.family, api.rule, api.uses, api.files, [availability_list(api.targets[t]) for t in names]]


def _folder(folder: Folder, names: list[str]) -> list[Any]:
    """[path, files, lines, tallies per target, effort hours [low, high] per target, children]."""
    return [
        folder.path,
        folder.files,
        folder.lines,
        [tally_list(folder.findings[t]) for t in names],
        [[round(folder.effort[t].low, 2), round(folder.effort[t].high, 2)] for t in names],
        [_folder(child, names) for child in folder.children],
    ]
