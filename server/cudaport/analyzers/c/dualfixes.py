"""Dual-stack fixes (`fix --style dual-stack`): the code keeps CUDA's names and the portability header maps them
to the target's. A name gets a `#define`, a call a function-like macro, a CUDA include becomes the portability
header's, a test of a CUDA header's macro tests the target's too; every such fix of a file shares the one include
of the portability header it needs."""

from __future__ import annotations

import re

from tree_sitter import Node

from ...i18n import t
from ...knowledge.ruleset import Outcome, RuleSet, Symbol, Target
from ...model.findings import CompatEntry, Difficulty, Edit, Fix
from ..common.syntax import call_of, text
from .calls import CallRewrite, as_macros
from .includelines import (
    concrete_header,
    first_code_line,
    header_top,
    include_lines,
    include_names,
    is_compat,
    is_cu,
    newline,
)
from .preprocessor import include_macro
from .scan import Scan


class DualStackFixes:
    """The dual-stack form of the fixes the finders make, for a file whose plan asks for them."""

    def __init__(self, ruleset: RuleSet) -> None:
        self.ruleset = ruleset

    def target(self, scan: Scan) -> Target | None:
        """The target, when this file gets dual-stack fixes (a target whose port is a rename, a plan, and not the
        portability header itself)."""
        plan = scan.context.dual
        target = self.ruleset.targets.get(scan.context.target)
        if plan is None or plan.is_header or target is None or not target.dual_stack:
            return None
        return target

    def for_name(self, scan: Scan, symbol: Symbol, name: str, outcome: Outcome, fix: Fix | None) -> Fix | None:
        """`#define cudaX hipX` in the portability header, for a plain name whose rename is safe everywhere it is
        used. Not for a plain word that is CUDA's only in some positions (a macro would rename every use), nor a
        qualified name (a macro names one identifier)."""
        if fix is None or not fix.is_safe or outcome.replacement is None or self.target(scan) is None:
            return None
        if symbol.generic or symbol.scopes or symbol.kind in ("header", "namespace", "guard") or "::" in name:
            return None
        plan = scan.context.dual
        assert plan is not None
        replacement = outcome.replacement
        title = (
            t(
                "Keep `{name}`: map it to `{replacement}` in {header} (dual-stack)",
                replacement=replacement,
                name=name,
                header=plan.header_name,
            )
            if replacement
            else t("Keep `{name}`: map it to nothing in {header} (dual-stack)", name=name, header=plan.header_name)
        )
        return Fix(
            title,
            self._name_insertion(scan),
            compat=(CompatEntry("name", name, replacement),),
        )

    def for_call(
        self, scan: Scan, node: Node, symbol: Symbol, calls: tuple[CallRewrite, ...], call: CallRewrite, fix: Fix
    ) -> Fix | None:
        """A call whose counterpart takes other arguments: a function-like macro in the portability header (the
        same templates), or the rewrite itself where it names nothing of the target (integer arithmetic)."""
        if not fix.is_safe or self.target(scan) is None:
            return None
        if not call.callee:
            return fix  # an expression CUDA builds too
        if symbol.generic or symbol.scopes or as_macros(symbol.name, calls) is None:
            return None
        plan = scan.context.dual
        assert plan is not None
        expression = call_of(node)
        arguments = expression.child_by_field_name("arguments") if expression is not None else None
        # a macro argument with a top-level comma (`kernel<T, 4>`) is parenthesised, which C++ reads the same
        edits = tuple(
            Edit(a.start_byte, a.end_byte, f"({text(a)})")
            for a in (arguments.named_children if arguments is not None else [])
            if a.type != "comment" and _top_level_comma(a)
        )
        return Fix(
            t(
                "Keep `{name}`: its calls become `{callee}` through {header} (dual-stack)",
                name=symbol.name,
                callee=call.callee,
                header=plan.header_name,
            ),
            (*edits, *self._name_insertion(scan)),
            compat=(CompatEntry("call", symbol.name, call.callee),),
        )

    def for_include(self, scan: Scan, match: re.Match[bytes], path: str, replacement: str) -> Fix | None:
        """The CUDA include becomes the portability header (included once, where the file's first CUDA include
        was): a runtime header goes (the portability header includes it on either side); a library header is
        included through its macro, `#include CUDAPORT_CUBLAS_V2_H`, so the file keeps exactly its headers."""
        target = self.target(scan)
        plan = scan.context.dual
        if target is None or plan is None:
            return None
        core = replacement in ("", target.runtime_include)
        line_start = scan.data.rfind(b"\n", 0, match.start()) + 1
        line_end_at = scan.data.find(b"\n", match.end())
        line_end = len(scan.data) if line_end_at == -1 else line_end_at + 1
        edits: list[Edit] = []
        insertion = self._compat_insertion(scan)
        if insertion is not None:
            edits.append(insertion)
        if core:
            edits.append(Edit(line_start, line_end, ""))
            title = t("Include {header} instead of `{path}` (dual-stack)", header=plan.header_name, path=path)
        else:
            edits.append(Edit(match.start(), match.end(), f"#include {include_macro(path)}"))
            title = t(
                "Include `{path}` through {header}: `{replacement}` on {target} (dual-stack)",
                path=path,
                header=plan.header_name,
                replacement=replacement,
                target=t(target.label),
            )
        return Fix(title, tuple(edits), compat=(CompatEntry("header", path, replacement, core),))

    def for_runtime_include(self, scan: Scan, header: str, fix: Fix) -> Fix | None:
        """The runtime include nvcc adds implicitly (`fix` adds the target's): the portability header instead,
        which includes the runtime on either side."""
        insertion = self._compat_insertion(scan) if self.target(scan) is not None and fix.is_safe else None
        plan = scan.context.dual
        if insertion is None or plan is None:
            return None
        entry = CompatEntry("header", "cuda_runtime.h", header, True)
        return Fix(t("Include {header} (dual-stack)", header=plan.header_name), (insertion,), compat=(entry,))

    def _name_insertion(self, scan: Scan) -> tuple[Edit, ...]:
        """The portability header's include for a file that uses CUDA names but reaches no CUDA header (a helper
        header relying on its includer's): included there too, so the mapping holds wherever the file is used."""
        if scan.name_insertion is None:
            names = {name for _, name in include_names(scan)} | (scan.context.includes or set())
            reaches = any(is_compat(scan, name) or self._becomes_compat(name, scan.context.target) for name in names)
            scan.name_insertion = (None if reaches else self._compat_insertion(scan),)
        insertion = scan.name_insertion[0]
        return (insertion,) if insertion is not None else ()

    def _becomes_compat(self, name: str, target: str) -> bool:
        """A CUDA header whose include a dual-stack fix turns into the portability header's (it has a counterpart,
        safely renamed); one without (npp.h) stays, and brings no mapping."""
        symbol = self.ruleset.header(name)
        if symbol is None:
            return False
        outcome = self.ruleset.outcome(concrete_header(symbol, name, target), target)
        return outcome.rewrite and outcome.replacement is not None and outcome.difficulty <= Difficulty.MECHANICAL

    def _compat_insertion(self, scan: Scan) -> Edit | None:
        """The one `#include` of the portability header a file gets (the same edit for every dual-stack fix of the
        file, so it is made once): at the top of a .cu file, where nvcc puts its implicit runtime include; before the
        first CUDA include elsewhere. None when the file includes it already. Worked out once per analysis: every
        header finding asks, and each answer reads all the file's includes."""
        if scan.compat_insertion is None:
            scan.compat_insertion = (self._find_compat_insertion(scan),)
        return scan.compat_insertion[0]

    def _find_compat_insertion(self, scan: Scan) -> Edit | None:
        plan = scan.context.dual
        if plan is None:
            return None
        first_cuda: int | None = None
        for quoted, name, match in include_lines(scan):
            if quoted and is_compat(scan, name):
                return None
            if first_cuda is None and self.ruleset.header(name) is not None:
                first_cuda = scan.data.rfind(b"\n", 0, match.start()) + 1
        at = first_code_line(scan) if is_cu(scan) else first_cuda if first_cuda is not None else header_top(scan)
        return Edit(at, at, f'#include "{plan.include}"{newline(scan)}')


def dual_guard(data: bytes, node: Node, name: str, other: str) -> Fix | None:
    """A test of a CUDA header's macro that tests the target's too: `#ifdef X` -> `#if defined(X) || defined(Y)`,
    `defined(X)` -> `(defined(X) || defined(Y))`; a value test (`#if X >= 2`) cannot be widened so."""
    parent = node.parent
    if parent is None:
        return None
    title = t("Test `{other}` beside `{name}` (dual-stack)", other=other, name=name)
    if parent.type == "preproc_ifdef" and parent.child_by_field_name("name") == node:
        keyword = data[parent.start_byte : node.start_byte]
        negated = re.match(rb"[ \t]*#[ \t]*ifndef", keyword) is not None
        test = f"#if !defined({name}) && !defined({other})" if negated else f"#if defined({name}) || defined({other})"
        return Fix(title, (Edit(parent.start_byte, node.end_byte, test),))
    if parent.type == "preproc_defined":
        return Fix(title, (Edit(parent.start_byte, parent.end_byte, f"(defined({name}) || defined({other}))"),))
    return None


def _top_level_comma(argument: Node) -> bool:
    """A comma in the argument outside parentheses (a template's arguments): a macro would split it there."""
    depth = 0
    for byte in argument.text or b"":
        if byte in b"([{":
            depth += 1
        elif byte in b")]}":
            depth -= 1
        elif byte == 0x2C and depth == 0:
            return True
    return False
