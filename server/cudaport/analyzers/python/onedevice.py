"""One device per line: when some `torch.cuda` use on a line cannot be rewritten, none of them is, so the line never
mixes two devices (`torch.mlu.is_available() and torch.cuda.<no counterpart>()`)."""

from __future__ import annotations

from collections import defaultdict

from ...i18n import t
from ...model.findings import Difficulty, Finding
from .reviewedfile import leave

# Findings that choose the device a line runs on: they are rewritten together or not at all.
_DEVICE_KINDS = frozenset({"api", "method", "device_string", "backend"})


def keep_one_device_per_line(data: bytes, findings: list[Finding]) -> None:
    """Leave every safe fix of a line alone when a finding on it that chooses the device needs a person."""
    lines: dict[int, list[Finding]] = defaultdict(list)
    line, counted = 0, 0  # newlines up to `counted`: one pass over the buffer for all findings
    for finding in sorted(findings, key=lambda f: f.start):
        if finding.data.get("kind") in _DEVICE_KINDS:
            line += data.count(b"\n", counted, finding.start)
            counted = finding.start
            lines[line].append(finding)
    for group in lines.values():
        stuck = [f for f in group if (f.fix is None or not f.fix.is_safe) and f.difficulty >= Difficulty.MANUAL]
        moving = [f for f in group if f.fix is not None and f.fix.is_safe]
        if not stuck or not moving:
            continue
        blocking = stuck[0].symbol
        for finding in moving:
            leave(
                finding,
                Difficulty.MANUAL,
                t(
                    "the line keeps one device: `{name}` on it needs a person first, then port them together",
                    name=blocking,
                ),
            )
