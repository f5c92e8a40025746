"""The portability header of a dual-stack fix: what the CUDA names a project uses are on the target.

A fresh header has one `#if <target condition>` chain: the target's runtime include and `#define`s under it, CUDA's
runtime includes under `#else`. A file that included a CUDA library header includes it through a macro instead
(`#include CUDAPORT_CUBLAS_V2_H`), so each file still gets exactly the headers it asked for, on either side.

An existing header (ours from an earlier run, or the project's own that portability-header detection found) is
extended, never rewritten: each missing line goes into its section (`// cudaport: names`, ...) in the target's
branch, in sorted order, and a section the header lacks is added at the end of that branch. A line the header
already has (by the name it defines or the header it includes) is never written twice, so a second run changes
nothing, and lines a person edited stay as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from ..analyzers.c.calls import COUNT_DISPATCH, CallRewrite, as_macros, dispatch_macros
from ..analyzers.c.preprocessor import include_macro
from ..knowledge.ruleset import Target
from ..model.findings import CompatEntry
from ..model.records import record

_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(ifndef|ifdef|if|elif|else|endif)\b(.*)$")
_NEGATED = re.compile(r"^\s*!\s*defined\b")
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)")
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]')
_GROUP_KEY = re.compile(r"^//\s*(\w+):")
_MARKER = "// cudaport: "

RUNTIME, HEADERS, NAMES, CALLS = "runtime", "headers", "names", "calls"
_TARGET_SECTIONS = (RUNTIME, HEADERS, NAMES, CALLS)
_CUDA_SECTIONS = (RUNTIME, HEADERS)


@record(frozen=True, slots=True)
class _Group:
    """Lines that go into a section together, sorted by `key`; `defines` / `includes` tell whether it is there."""

    key: str
    lines: tuple[str, ...]
    defines: str = ""
    includes: str = ""
    anywhere: bool = False  # there when the header defines it anywhere (a CUDA name), not only in this branch


@record(frozen=True, slots=True)
class _Branches:
    target: tuple[int, int]  # [first line, end line) of the target's code
    cuda: tuple[int, int] | None  # of the CUDA (#else) code, if the header has it


def update(
    existing: str | None,
    entries: Iterable[CompatEntry],
    target: Target,
    calls: Mapping[tuple[str, str], Sequence[CallRewrite]],
    file_name: str,
) -> str | None:
    """The header's new text with `entries`, or None when it already has them all."""
    wanted = sorted(set(entries), key=lambda e: (e.kind, e.cuda))
    if existing is None:
        wanted = [
            CompatEntry("header", "cuda_runtime.h", target.runtime_include, core=True),
            *wanted,
        ]
        text = _skeleton(target, file_name)
    else:
        text = existing
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines()
    branches = _find_branches(lines, target)
    groups = _groups(wanted, target, calls)
    changed = False
    for side, sections in (("target", _TARGET_SECTIONS), ("cuda", _CUDA_SECTIONS)):
        for section in sections:
            for group in groups.get((side, section), []):
                branch = branches.target if side == "target" else branches.cuda
                if branch is None or _present(lines, branch, group):
                    continue
                at = _insertion(lines, branch, section, group.key, target)
                lines[at:at] = list(group.lines)
                changed = True
                branches = _find_branches(lines, target)
    if not changed and existing is not None:
        return None
    return newline.join(lines) + newline


# ---- what the entries become ----------------------------------------------------------------------------------
def _groups(
    entries: Sequence[CompatEntry], target: Target, calls: Mapping[tuple[str, str], Sequence[CallRewrite]]
) -> dict[tuple[str, str], list[_Group]]:
    out: dict[tuple[str, str], list[_Group]] = {}

    def add(side: str, section: str, group: _Group) -> None:
        listed = out.setdefault((side, section), [])
        if all(g.key != group.key for g in listed):
            listed.append(group)

    dispatched = False
    for entry in entries:
        if entry.kind == "header":
            counterpart = entry.target or target.runtime_include
            if entry.core:
                add("target", RUNTIME, _Group(counterpart, (f"#include <{counterpart}>",), includes=counterpart))
                add("cuda", RUNTIME, _Group(entry.cuda, (f"#include <{entry.cuda}>",), includes=entry.cuda))
            else:
                macro = include_macro(entry.cuda)
                add("target", HEADERS, _Group(macro, (f"#define {macro} <{counterpart}>",), defines=macro))
                add("cuda", HEADERS, _Group(macro, (f"#define {macro} <{entry.cuda}>",), defines=macro))
        elif entry.kind == "name":
            line = f"#define {entry.cuda} {entry.target}".rstrip()
            add("target", NAMES, _Group(entry.cuda, (line,), defines=entry.cuda, anywhere=True))
        elif entry.kind == "call":
            rewrites = calls.get((entry.cuda, target.name), ())
            macros = as_macros(entry.cuda, rewrites)
            if macros is None:
                continue
            note = next((r.note for r in rewrites if r.note), "") or f"{target.label} takes its arguments another way"
            comment = f"// {entry.cuda}: {note}"
            add("target", CALLS, _Group(entry.cuda, (comment, *macros), defines=entry.cuda, anywhere=True))
            dispatched = dispatched or macros[0].startswith(f"#define {entry.cuda}(...) {COUNT_DISPATCH}(")
    if dispatched:
        comment = f"// {COUNT_DISPATCH}: a call with N arguments becomes CUDAPORT_<name>_N(...)"
        add("target", CALLS, _Group("", (comment, *dispatch_macros()), defines=COUNT_DISPATCH, anywhere=True))
    for listed in out.values():
        listed.sort(key=lambda g: g.key)
    return out


def _skeleton(target: Target, file_name: str) -> str:
    guard = re.sub(r"[^A-Za-z0-9]", "_", file_name).upper()
    return "\n".join(
        [
            f"// {file_name}: the CUDA names this project uses, and what they are on {target.label}.",
            "// Written by `cudaport fix --style dual-stack`: the sources keep their CUDA names and build with the",
            f"// CUDA toolkit as before; a build for {target.label} gets the mappings below. It is selected by",
            f"//   {target.dual_stack}",
            "// Review it like your own code: cudaport only adds lines for names the code starts to use, and never",
            "// changes the ones here.",
            f"#ifndef {guard}",
            f"#define {guard}",
            "",
            f"#if {target.dual_stack}",
            "",
            "#else  // CUDA",
            "",
            "#endif",
            "",
            f"#endif  // {guard}",
        ]
    )


def _marker_text(section: str, side_target: bool, target: Target) -> str:
    if section == HEADERS:
        return f"{_MARKER}headers (a file that included one includes it as `#include CUDAPORT_<NAME>`)"
    if section == CALLS:
        return f"{_MARKER}calls whose {target.label} form takes its arguments another way"
    if section == NAMES:
        return f"{_MARKER}names"
    return f"{_MARKER}runtime" if side_target else f"{_MARKER}runtime (nvcc includes cuda_runtime.h by itself)"


# ---- where things are in a header ------------------------------------------------------------------------------
def _find_branches(lines: list[str], target: Target) -> _Branches:
    """The target's branch of the first #if chain that tests one of the target's markers (or its generated
    condition), with the chain's #else; a header with no such chain is the target's code all through (a vendor
    header included only when building for it), inside its include guard."""
    markers = re.compile(target.markers.pattern)
    depth = 0
    for index, line in enumerate(lines):
        match = _DIRECTIVE.match(line)
        if match is None:
            continue
        keyword, condition = match.group(1), match.group(2)
        if keyword.startswith("if"):
            if markers.search(condition) or (target.dual_stack and target.dual_stack in condition):
                return _chain(lines, index, negated=keyword == "ifndef" or bool(_NEGATED.match(condition)))
            depth += 1
        elif keyword == "endif":
            depth -= 1
    return _Branches(_guarded_body(lines), None)


def _chain(lines: list[str], start: int, negated: bool) -> _Branches:
    """The branches of the #if chain whose opening line is `start`."""
    depth = 0
    cuts: list[tuple[int, str]] = []  # (line, keyword) of the chain's own #elif/#else/#endif
    for index in range(start + 1, len(lines)):
        match = _DIRECTIVE.match(lines[index])
        if match is None:
            continue
        keyword = match.group(1)
        if keyword.startswith("if"):
            depth += 1
        elif keyword == "endif" and depth:
            depth -= 1
        elif depth == 0:
            cuts.append((index, keyword))
            if keyword == "endif":
                break
    if not cuts:
        return _Branches((start + 1, len(lines)), None)
    first = (start + 1, cuts[0][0])
    else_at = next((i for i, (_, keyword) in enumerate(cuts) if keyword == "else"), None)
    other = (cuts[else_at][0] + 1, cuts[else_at + 1][0]) if else_at is not None and else_at + 1 < len(cuts) else None
    if negated:  # `#ifndef USE_ROCM`: CUDA first, the target after #else
        return _Branches(other, first) if other is not None else _Branches(first, None)
    return _Branches(first, other)


def _guarded_body(lines: list[str]) -> tuple[int, int]:
    directives = [(i, m.group(1), m.group(2).strip()) for i, line in enumerate(lines) if (m := _DIRECTIVE.match(line))]
    if (
        len(directives) >= 2
        and directives[0][1] == "ifndef"
        and directives[-1][1] == "endif"
        and _DEFINE.match(lines[directives[0][0] + 1] if directives[0][0] + 1 < len(lines) else "")
    ):
        return directives[0][0] + 2, directives[-1][0]
    return 0, len(lines)


def _present(lines: list[str], branch: tuple[int, int], group: _Group) -> bool:
    scope = lines if group.anywhere else lines[branch[0] : branch[1]]
    if group.defines:
        pattern = re.compile(r"^[ \t]*#[ \t]*define[ \t]+" + re.escape(group.defines) + r"\b")
        return any(pattern.match(line) for line in scope)
    return any((m := _INCLUDE.match(line)) is not None and m.group(1).strip() == group.includes for line in scope)


def _insertion(lines: list[str], branch: tuple[int, int], section: str, key: str, target: Target) -> int:
    """Where a group with `key` goes: sorted into its section, or a new section at the end of the branch."""
    start, end = branch
    marker = next(
        (i for i in range(start, end) if lines[i].strip().startswith(f"{_MARKER}{section}")),
        None,
    )
    if marker is None:
        at = end
        while at > start and not lines[at - 1].strip():
            at -= 1
        block = [_marker_text(section, _is_target_branch(lines, start, target), target)]
        if at > 0 and lines[at - 1].strip():
            block.insert(0, "")  # a blank line between sections
        lines[at:at] = block
        after = at + len(block)  # the new section's lines go right after its marker
        if after < len(lines) and lines[after].strip():
            lines.insert(after, "")
        return after
    index = marker + 1
    while index < len(lines) and lines[index].strip():
        if _directive_closes(lines[index]):
            break
        existing = _key(lines[index], section)
        if existing is not None and existing > key:
            return index
        index += 1
    return index


def _is_target_branch(lines: list[str], start: int, target: Target) -> bool:
    """Whether the branch starting at `start` is the target's (its opening line tests the target)."""
    if start == 0:
        return True
    match = _DIRECTIVE.match(lines[start - 1])
    return match is None or match.group(1) != "else"


def _directive_closes(line: str) -> bool:
    match = _DIRECTIVE.match(line)
    return match is not None and match.group(1) in ("elif", "else", "endif")


def _key(line: str, section: str) -> str | None:
    """The sort key of a line that starts a group in `section` (None: a line inside a group)."""
    if section == CALLS:
        found = _GROUP_KEY.match(line.strip())
        if found is None:
            return None
        return "" if found.group(1) == COUNT_DISPATCH else found.group(1)
    define = _DEFINE.match(line)
    if define is not None:
        return define.group(1)
    include = _INCLUDE.match(line)
    return include.group(1).strip() if include is not None else None
