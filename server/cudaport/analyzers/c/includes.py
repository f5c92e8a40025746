"""What a file's includes decide: its CUDA headers and their counterparts, the runtime header nvcc includes in a
.cu file without being asked (CP1007), and the explicit initialisation a runtime needs when no included framework
does it."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator

from ...i18n import t
from ...knowledge.ruleset import Outcome, RuleSet, Symbol, Target
from ...model.findings import Applicability, Difficulty, Edit, Finding, Fix
from ..common.syntax import node_at
from .dualfixes import DualStackFixes
from .includelines import concrete_header, first_code_line, include_lines, include_names, is_compat, is_cu, newline
from .preprocessor import at_line_start
from .renames import rename_fix
from .scan import Scan

IMPLICIT_RUNTIME_RULE = "CP1007"
# Starts with a literal `#` so the regex engine can skip ahead; `at_line_start` checks the rest.
INCLUDE = re.compile(rb'#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]')
# Kernel syntax and builtins that nvcc makes available in a .cu file without any #include.
_KERNEL_SYNTAX = re.compile(
    rb"(?<![\w$])(?:__global__|__device__|__shared__|__constant__|threadIdx|blockIdx|blockDim|gridDim|__syncthreads)"
    rb"(?![\w$])|<<<"
)
# Its words, found first with bytes.find (memchr-fast): the regex, which starts with a lookbehind, costs ~30 ms a
# megabyte, and a .cu file without kernel syntax (host code) would pay that on every keystroke.
_KERNEL_WORDS = (
    b"__global__", b"__device__", b"__shared__", b"__constant__", b"threadIdx", b"blockIdx", b"blockDim", b"gridDim",
    b"__syncthreads", b"<<<",
)  # fmt: skip
_RUNTIME_FIRST = "runtime first"  # an include that brings the runtime comes before any that needs it


class HeaderFinder:
    """The file's includes of CUDA headers, each with its rename (and its dual-stack form)."""

    def __init__(self, ruleset: RuleSet, dual: DualStackFixes) -> None:
        self.ruleset = ruleset
        self.dual = dual

    def find(self, scan: Scan) -> Iterator[Finding]:
        if not scan.has(b"include"):
            return
        target = scan.context.target
        known = self.ruleset.targets.get(target)
        for match in (m for lo, hi in scan.windows for m in INCLUDE.finditer(scan.data, lo, hi)):
            if not at_line_start(scan.data, match.start()):
                continue
            start, end = match.span(2)
            if not scan.wanted(start):
                continue
            path = match.group(2).decode("utf-8", "replace").strip()
            symbol = self.ruleset.header(path)
            if symbol is None:
                continue
            node = node_at(scan.root, start, end)
            if node is None or node.type == "comment":
                continue
            if symbol.name != path and scan.context.is_project_file(path):
                continue  # `"cuda/scatter_cuda.h"`: the project's own header, not one of the library the glob names
            symbol = concrete_header(symbol, path, target)
            outcome = self.ruleset.outcome(symbol, target)
            fix = rename_fix(path, outcome, start, end)
            if fix is not None and known is not None and outcome.replacement in known.after_runtime:
                fix = self._runtime_first(scan, known, fix, match.start())
            finding = scan.finding(
                symbol.rule, start, end, outcome, path, fix, {"library": symbol.library, "kind": "header"}
            )
            if fix is not None and fix.is_safe and outcome.replacement is not None:
                finding.dual = self.dual.for_include(scan, match, path, outcome.replacement)
            yield finding

    def _runtime_first(self, scan: Scan, target: Target, fix: Fix, include_start: int) -> Fix:
        """A rename to a header that needs the runtime first (HIP's cooperative groups) also puts the runtime
        include before it, unless an earlier include of the file already brings the runtime."""
        at = self._runtime_insertion(scan, target)
        if at is None or at > include_start:
            return fix
        insertion = Edit(at, at, f"#include <{target.runtime_include}>{newline(scan)}")
        title = t("{title}, after `#include <{header}>`", title=fix.title, header=target.runtime_include)
        return Fix(title, (insertion, *fix.edits), fix.applicability)

    def _runtime_insertion(self, scan: Scan, target: Target) -> int | None:
        """Where the runtime include goes when a fix adds it (None: an include already brings it first). In a .cu
        file at the top, where nvcc puts its implicit one; elsewhere before the first include whose target header
        needs it. Every fix that adds it uses this one place, so the edit is shared, never made twice."""
        for _, name, match in include_lines(scan):
            if _declares_runtime(self.ruleset, name, target):
                return None
            symbol = self.ruleset.header(name)
            mapping = self.ruleset.mapping(symbol, target.name) if symbol is not None else None
            if name in target.after_runtime or (mapping is not None and mapping.replacement in target.after_runtime):
                return first_code_line(scan) if is_cu(scan) else scan.data.rfind(b"\n", 0, match.start(2)) + 1
        return first_code_line(scan)


class ImplicitRuntime:
    """The runtime header nvcc includes implicitly: where a .cu file relies on it, the target's runtime include."""

    def __init__(self, ruleset: RuleSet, dual: DualStackFixes) -> None:
        self.ruleset = ruleset
        self.dual = dual
        self._target_header_names: dict[str, frozenset[str]] = {}

    def find(self, scan: Scan) -> Iterator[Finding]:
        """nvcc includes cuda_runtime.h at the top of every .cu file; hipcc includes nothing. A .cu file with
        kernels but no runtime include, or one that includes a project header using CUDA names before any runtime
        include (cuda-samples' helper_cuda.h tests `__CUDA_RUNTIME_H__`), needs the target's runtime include at
        the top, as hipify adds it."""
        target = self.ruleset.targets.get(scan.context.target)
        if target is None or not target.runtime_include or not is_cu(scan):
            return
        early = self._header_before_runtime(scan, target)
        if early is _RUNTIME_FIRST:
            return
        if early is not None:
            assert not isinstance(early, str)
            _, name, match = early
            start, end = match.span(2)
            if scan.wanted(start):
                message = t(
                    "nvcc includes the CUDA runtime before `{name}`, which uses CUDA names; {target} needs "
                    "`#include <{header}>` before it",
                    name=name,
                    target=t(target.label),
                    header=target.runtime_include,
                )
                yield self._runtime_include_finding(scan, target, start, end, name, message, Difficulty.MECHANICAL)
            return
        written = include_names(scan)
        followed = scan.context.includes
        names = {name for _, name in written} | (followed or set())
        if any(_declares_runtime(self.ruleset, name, target) or is_compat(scan, name) for name in names):
            return
        if not names.isdisjoint(self._target_headers(target.name)):
            return  # a header of the target is already included (a dual-stack selection header): it brings the rest
        # Quoted includes that are neither CUDA headers nor found in the project: one of them might bring the
        # runtime (its include path is the build's business), so the include is offered for review, not applied.
        unknown = (
            sorted(
                name
                for quoted, name in written
                if quoted and self.ruleset.header(name) is None and not scan.context.is_project_file(name)
            )
            if followed is None
            else []
        )
        for match in _kernel_syntax(scan):
            start, end = match.span()
            if scan.code_node(start, end) is None:
                continue
            if not scan.wanted(start):
                return
            symbol = match.group(0).decode()
            message = t(
                "CUDA runtime: `{symbol}` relies on the runtime header nvcc includes implicitly; "
                "{target} needs `#include <{header}>`",
                symbol=symbol,
                target=t(target.label),
                header=target.runtime_include,
            )
            floor = Difficulty.MECHANICAL
            if unknown:
                shown = ", ".join(f"`{n}`" for n in unknown[:3])
                message = t(
                    "{message} unless {headers}, which cudaport could not find, already includes it",
                    message=message,
                    headers=shown,
                )
                floor = Difficulty.MANUAL
            yield self._runtime_include_finding(scan, target, start, end, symbol, message, floor)
            return

    def _header_before_runtime(self, scan: Scan, target: Target) -> tuple[bool, str, re.Match[bytes]] | str | None:
        """The first include of a project header that uses CUDA names without bringing the runtime, when it comes
        before any include that does; _RUNTIME_FIRST when an include bringing the runtime comes first."""
        for quoted, name, match in include_lines(scan):
            if _declares_runtime(self.ruleset, name, target) or is_compat(scan, name):
                return _RUNTIME_FIRST
            if self.ruleset.header(name) is not None:
                continue
            facts = scan.context.include_facts(name)
            if facts is None:
                continue
            if any(_declares_runtime(self.ruleset, n, target) for n in facts.names):
                return _RUNTIME_FIRST
            if facts.uses_cuda:
                return quoted, name, match
        return None

    def _runtime_include_finding(
        self, scan: Scan, target: Target, start: int, end: int, symbol: str, message: str, floor: Difficulty
    ) -> Finding:
        rule = self.ruleset.rule(IMPLICIT_RUNTIME_RULE)
        difficulty = max(rule.difficulty.get(target.name, Difficulty.MECHANICAL), floor)
        header = target.runtime_include
        at = first_code_line(scan)
        fix = Fix(
            title=t("Add `#include <{header}>`", header=header),
            edits=(Edit(at, at, f"#include <{header}>{newline(scan)}"),),
            applicability=Applicability.SAFE if difficulty <= Difficulty.MECHANICAL else Applicability.UNSAFE,
        )
        outcome = Outcome(difficulty, header, message, True)
        finding = scan.finding(rule.code, start, end, outcome, symbol, fix, {"kind": "include"})
        finding.dual = self.dual.for_runtime_include(scan, header, fix)
        return finding

    def _target_headers(self, target: str) -> frozenset[str]:
        """The target's own header names, as the rule data gives them for CUDA's headers (hipcub/hipcub.hpp)."""
        cached = self._target_header_names.get(target)
        if cached is None:
            cached = frozenset(
                mapping.replacement
                for symbol in self.ruleset.headers.values()
                if (mapping := self.ruleset.mapping(symbol, target)).replacement and mapping.replacement != symbol.name
            )
            self._target_header_names[target] = cached
        return cached


def runtime_init_finding(ruleset: RuleSet, scan: Scan, findings: list[Finding]) -> Finding | None:
    """One finding for a file that uses a runtime needing explicit initialisation (ACL) but never initialises it:
    at the first CUDA call that becomes a call of that runtime, or the first such call already there."""
    target = ruleset.targets.get(scan.context.target)
    init = target.init if target is not None else None
    if target is None or init is None or not init.triggers or init.rule not in ruleset.rules:
        return None
    if init.provided_by and _includes_any(scan, init.provided_by):
        return None  # a framework (torch_npu) initialises the runtime before this code runs
    first: tuple[int, int, str] | None = None
    for finding in findings:
        symbol = ruleset.symbols.get(finding.symbol)
        mapping = ruleset.mapping(symbol, target.name) if symbol is not None else None
        if (
            mapping is not None
            and mapping.replacement.startswith(init.triggers)
            and finding.data.get("kind") == "function"
        ):
            first = (finding.start, finding.end, finding.symbol)
            break
    triggers = b"|".join(re.escape(word.encode()) for word in init.triggers)
    for match in re.finditer(rb"(?<![\w$])(?:" + triggers + rb")\w*(?=\s*\()", scan.data):
        if first is not None and match.start() >= first[0]:
            break
        if scan.code_node(match.start(), match.end()) is not None:
            first = (match.start(), match.end(), match.group(0).decode())
            break
    if first is None or not scan.wanted(first[0]):
        return None
    called = re.compile(rb"(?<![\w$])" + re.escape(init.call.encode()) + rb"(?![\w$])")
    if any(scan.code_node(m.start(), m.end()) is not None for m in called.finditer(scan.data)):
        return None
    outcome = ruleset.outcome(Symbol(init.call, "function", init.rule, "runtime", {}), target.name)
    return scan.finding(init.rule, first[0], first[1], outcome, first[2], data={"kind": "initialisation"})


def _declares_runtime(ruleset: RuleSet, name: str, target: Target) -> bool:
    """`cuda_runtime.h`, a CUDA header whose counterpart on the target is its runtime header (`cuda.h` on
    HIP), or the runtime header itself."""
    if name == target.runtime_include:
        return True
    symbol = ruleset.header(name)
    if symbol is None:
        return False
    if "runtime" in symbol.flags:
        return True  # PyTorch's ATen/c10 CUDA headers bring the runtime (its ROCm build: the HIP one)
    return ruleset.mapping(symbol, target.name).replacement == target.runtime_include


def _includes_any(scan: Scan, patterns: tuple[str, ...]) -> bool:
    """Whether the file, or a project header it includes, includes a header matching one of `patterns`."""
    names = {name for _, name in include_names(scan)} | (scan.context.includes or set())
    return any(fnmatch.fnmatchcase(name, pattern) for name in names for pattern in patterns)


def _kernel_syntax(scan: Scan) -> Iterator[re.Match[bytes]]:
    """The kernel syntax of a buffer, in order, from the first of its words (none: nothing is scanned)."""
    data = scan.data
    found = [at for at in (data.find(word) for word in _KERNEL_WORDS if scan.has(word)) if at >= 0]
    if not found:
        return iter(())
    return _KERNEL_SYNTAX.finditer(data, min(found))  # the lookbehind still sees the byte before `pos`
