"""Code already written for the target: findings inside a dual-stack chain that selects the target's code path,
names a `#define` (typedef, using) of the file or a portability header it includes already maps, and CUDA names
the file defines itself. Each such finding becomes portable, with the reason in its message."""

from __future__ import annotations

import re
from collections.abc import Callable

from ...i18n import t
from ...knowledge.ruleset import RuleSet, Target
from ...model.findings import Difficulty, Finding
from .preprocessor import GuardIndex, guard_shape, shim_definitions
from .scan import Scan

_DEFINE_HEAD = re.compile(rb"[ \t]*#[ \t]*define[ \t]+\Z")
_DEFINE_VALUE = re.compile(rb"(?:\([^)\n]*\))?[ \t]+([A-Za-z_][\w:]*)")


class AlreadyPorted:
    """The file's dual-stack chains and local shims (also the analyzer's file facts), and the findings they
    settle."""

    def __init__(self, ruleset: RuleSet) -> None:
        self.ruleset = ruleset
        self._markers: dict[str, re.Pattern[bytes]] = {}  # compiled when a file of that target needs them

    def mark(self, scan: Scan, findings: list[Finding]) -> None:
        target = self.ruleset.targets.get(scan.context.target)
        if target is None:
            return
        # Both facts need the whole buffer: work them out once, and only when a finding can use them.
        guards: GuardIndex | None = None
        local_shims: dict[str, str] | None = None
        for finding in findings:
            if finding.difficulty == Difficulty.PORTABLE:
                continue
            if local_shims is None:
                guards = self.guards(scan, target)
                local_shims = self.local_shims(scan, target)
            region = guards.find(finding.start) if guards else None
            if region is not None:
                mark_ported(
                    finding,
                    t(
                        "already dual-stack: the {target} path is chosen by `{marker}` (line {line})",
                        target=t(target.label),
                        marker=region.marker,
                        line=region.line,
                    ),
                )
                finding.line_ref = region.named
                continue
            if finding.data.get("held"):
                continue  # a mapping of the name does not make this use build
            mapped = local_shims.get(finding.symbol)
            if mapped is not None:
                mark_ported(finding, _mapped(mapped, None))
                continue
            shim = scan.context.shims.get(finding.symbol)
            if shim is not None:
                mark_ported(finding, _mapped(shim.replacement, shim.header))
                continue
            value = _macro_defined_at(scan.data, finding)
            if value is not None:
                # `#define cudaMalloc musaMalloc`: a portability header for another platform defines the CUDA name
                # itself; renaming it would break that header, and nothing here calls CUDA.
                mark_ported(
                    finding, t("this file defines `{name}` itself (as `{value}`)", name=finding.symbol, value=value)
                )

    def guards(self, scan: Scan, target: Target) -> GuardIndex | None:
        """The chains of the file that select the target's code path. Where they are, as positions among the lines
        that begin with `#`, is worked out again only when one of those lines is edited (an editor session
        analyses the whole file when a comment opens or closes around one)."""
        if not scan.has(b"#"):
            return None
        markers = self._target_markers(target)
        data = scan.data
        hash_lines = scan.context.lines(data, b"#")
        shape = scan.context.remember(
            ("guards", target.name),
            hash_lines.generation,
            lambda: guard_shape(data, markers, _comment_test(scan), hash_lines.starts),
        )
        return GuardIndex(shape, data, hash_lines.starts)

    def local_shims(self, scan: Scan, target: Target) -> dict[str, str]:
        """`#define cudaX hipX` and the like in this file, worked out again only when such a line is edited."""
        if not any(scan.has(prefix.encode()) for prefix in target.shim_prefixes):
            return {}
        data = scan.data
        context = scan.context
        words = (b"#", b"typedef", b"using", b"namespace")
        stamp = tuple(context.lines(data, word).generation for word in words)
        return context.remember(  # type: ignore[no-any-return]
            ("shims", target.name),
            stamp,
            lambda: shim_definitions(
                data, self.ruleset.mappable, target.shim_prefixes, lambda word: context.lines(data, word).starts
            ),
        )

    def _target_markers(self, target: Target) -> re.Pattern[bytes]:
        markers = self._markers.get(target.name)
        if markers is None:
            markers = self._markers[target.name] = re.compile(target.markers.pattern.encode())
        return markers


def mark_ported(finding: Finding, why: str) -> None:
    """The finding needs nothing on the target (`why` says what already ports it): portable, without a fix."""
    finding.difficulty = Difficulty.PORTABLE
    finding.fix = None
    finding.dual = None
    finding.replacement = None
    finding.message = t("{message} — {why}", message=finding.message, why=why)
    finding.data["ported"] = "1"


def _mapped(replacement: str, header: str | None) -> str:
    """Why a finding is already ported: a #define in this file (`header` None) or a header it includes maps it."""
    if header is None:
        if replacement:
            return t("already mapped to `{replacement}` by a #define in this file", replacement=replacement)
        return t("already defined as nothing by a #define in this file")
    if replacement:
        return t("already mapped to `{replacement}` by {header}", replacement=replacement, header=header)
    return t("already defined as nothing by {header}", header=header)


def _macro_defined_at(data: bytes, finding: Finding) -> str | None:
    """The value of a `#define` whose name is the finding (`#define cudaMalloc musaMalloc` -> musaMalloc)."""
    line_start = data.rfind(b"\n", 0, finding.start) + 1
    if not _DEFINE_HEAD.match(data, line_start, finding.start):
        return None
    value = _DEFINE_VALUE.match(data, finding.end)
    return value.group(1).decode("utf-8", "replace") if value else None


def _comment_test(scan: Scan) -> Callable[[int], bool]:
    """Comments can hide directives (`/* #endif */`): asks the tree about each directive's position, which is
    far cheaper than listing every comment of a large file."""

    def in_comment(offset: int) -> bool:
        node = scan.root_for(offset, offset + 1).descendant_for_byte_range(offset, offset + 1)
        return node is not None and node.type == "comment" and node.start_byte <= offset

    return in_comment
