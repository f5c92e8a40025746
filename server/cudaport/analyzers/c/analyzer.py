"""CUDA, C and C++ sources: names from the rule data, headers, namespaces, then the pattern families
(warp-size assumptions, inline PTX) in their own modules.

Speed comes from not walking the tree: a C-level regex finds the words that the rule data knows, and only those
positions are looked up in the tree to learn their context (comment, string, macro body, call, device code).
"""

from __future__ import annotations

import bisect
import fnmatch
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from tree_sitter import Node, Parser, Tree

from ...i18n import t
from ...knowledge.ruleset import Outcome, RuleSet, Symbol, Target, TargetMapping
from ...model.findings import Applicability, CompatEntry, Difficulty, Edit, Finding, FindingData, Fix
from ...model.source import apply_edits
from ..common.base import FactChanges, FileContext, IncrementalProfile, whole_words
from ..common.syntax import (
    ancestor,
    call_of,
    defines_macro,
    in_device_code,
    in_preproc_condition,
    is_called,
    node_at,
    parse_span,
    reparse,
    text,
)
from . import clangdiff, kernels, pointers, vectorops, warp
from .calls import CallRewrite, CallSite, as_macros, load_call_rewrites
from .language import CUDA_LANGUAGE
from .names import CNames
from .preprocessor import GuardIndex, at_line_start, guard_shape, include_macro, shim_definitions
from .scan import Scan

# Starts with a literal `#` so the regex engine can skip ahead; `_at_line_start` checks the rest.
_INCLUDE = re.compile(rb'#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]')
_INCLUDE_LINE = re.compile(rb'[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]')  # matched at a line's start
_NAME_NODES = frozenset({"identifier", "type_identifier", "namespace_identifier", "primitive_type", "field_identifier"})
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
IMPLICIT_RUNTIME_RULE = "CP1007"
_RUNTIME_FIRST = "runtime first"  # an include that brings the runtime comes before any that needs it
_CALLABLE_KINDS = frozenset({"function", "device_function"})
_HOST_RUNTIME_RULES = frozenset({"CP1001", "CP1002"})
# A statement with one of these left for a person keeps its other CUDA names: `cudaStream_t s =
# at::cuda::getStreamFromPool();` must not become half ACL, half CUDA.
_WHOLE_STATEMENT_RULES = frozenset({"CP1040"})
_STATEMENTS = frozenset(
    {"declaration", "expression_statement", "return_statement", "field_declaration"}
)  # host APIs: called in device code, they need CDP
_RETURN_DECLARATORS = frozenset({"pointer_declarator", "reference_declarator"})


_FILE_SUPPRESSION = rb"cudaport:[ \t]*ignore-file[^\n]*"
_FILE_SUPPRESSION_LINE = re.compile(_FILE_SUPPRESSION)

# What an edit can change, for the engine's analysis session (cudaport.session).
INCREMENTAL = IncrementalProfile(
    file_wide=re.compile(
        # conditional compilation (which code paths are already dual-stack)
        rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b[^\n]*"
        # portability definitions: `#define cudaMalloc hipMalloc`, `typedef hipStream_t cudaStream_t;`
        rb"|^[ \t]*#[ \t]*define[ \t]+\w+[ \t]+[A-Za-z_][\w:]*[ \t]*(?://[^\n]*)?\r?$"
        rb"|^[ \t]*(?:typedef[ \t]+\w+[ \t]+\w+|using[ \t]+\w+[ \t]*=[ \t]*\w+)[ \t]*;"
        # includes: whether the file has its runtime include decides findings at its first kernel (CP1007)
        rb"|^[ \t]*#[ \t]*include[ \t]*<[^>\n]*>?"
        # file-level suppressions (a line's own suppression is analysed with its line)
        rb"|" + _FILE_SUPPRESSION,
        re.MULTILINE,
    ),
    context_lines=re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"', re.MULTILINE),
    scopes=frozenset({"function_definition", "preproc_def", "preproc_function_def", "template_declaration"}),
    containers=frozenset(
        {
            "translation_unit",
            "namespace_definition",
            "declaration_list",
            "linkage_specification",
            "preproc_if",
            "preproc_ifdef",
            "preproc_else",
            "preproc_elif",
            "preproc_elifdef",
            "field_declaration_list",
        }
    ),
    declarations="(function_declarator (identifier) @name) (field_identifier) @field",
    facts=True,  # CFileFacts: an edit to a directive re-analyses the chains it changes
    # no finding depends on the conditional blocks around it (only on its own directive's condition)
    transparent=frozenset({"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"}),
    file_level=frozenset({"CP1032", IMPLICIT_RUNTIME_RULE}),  # one finding per file, at the first place it applies
    file_wide_statements=True,  # each match above is the whole directive: typing after `#include <x.h>` is local
    # declarations that parse the same alone as at the top of a file (not the blocks that hold others: an #if, a
    # namespace)
    items=frozenset(
        {
            "function_definition",
            "declaration",
            "comment",
            "preproc_include",
            "preproc_def",
            "preproc_function_def",
            "preproc_call",
            "struct_specifier",
            "class_specifier",
            "enum_specifier",
            "union_specifier",
            "type_definition",
            "template_declaration",
            "template_instantiation",
            "namespace_alias_definition",
            "alias_declaration",
            "using_declaration",
            "expression_statement",
            ";",
            # what is left of a macro a line break cut short (`} while (0)`): top-level statements, as the grammar
            # reads them in the file too
            "compound_statement",
            "if_statement",
            "while_statement",
            "do_statement",
            "for_statement",
            "return_statement",
        }
    ),
)


@dataclass(frozen=True, slots=True)
class CFileFacts:
    """What the file's file-wide statements decide (see FileFacts): compared before and after an edit to one."""

    guards: tuple[tuple[int, int, int, str], ...]  # the target's dual-stack chains: (start, end, named at, marker)
    shims: tuple[tuple[str, str], ...]  # CUDA name -> target name, by a #define (typedef, using) in the file
    includes: tuple[tuple[bool, str], ...]  # (quoted, name) of the includes, each name where it first appears
    first_code_line: int  # where an added #include goes
    file_suppressions: tuple[bytes, ...]  # `cudaport: ignore-file[...]`

    def changes(self, new: Any, moved: Callable[[int], int]) -> FactChanges | None:
        if not isinstance(new, CFileFacts):
            return None
        if (
            self.includes != new.includes
            or self.file_suppressions != new.file_suppressions
            or moved(self.first_code_line) != new.first_code_line
        ):
            # What the includes decide is file-level (the runtime include nvcc adds, explicit initialisation)
            return None
        before = {(moved(start), moved(end), moved(named), marker) for start, end, named, marker in self.guards}
        ranges = [(start, end) for start, end, _, _ in before.symmetric_difference(new.guards)]
        old_shims, new_shims = dict(self.shims), dict(new.shims)
        symbols = frozenset(n for n in old_shims.keys() | new_shims.keys() if old_shims.get(n) != new_shims.get(n))
        return FactChanges(ranges, symbols)


class CFamilyAnalyzer:
    incremental = INCREMENTAL
    language = "c"

    def __init__(self, ruleset: RuleSet) -> None:
        self.ruleset = ruleset
        self.parser = Parser(CUDA_LANGUAGE)
        self.names = CNames(Parser(CUDA_LANGUAGE))  # what a fix's names mean to the file (cudaport.consistency)
        self._symbol_words = frozenset(name.encode() for name in ruleset.symbols)
        # `thrust::cuda` rows match the last component where the enclosing scopes spell the rest
        self._qualified: dict[str, list[Symbol]] = {}
        for name, symbol in ruleset.namespaces.items():
            if "::" in name:
                self._qualified.setdefault(name.rsplit("::", 1)[1], []).append(symbol)
        self._namespace_words = frozenset(
            name.encode() for name in [*ruleset.namespaces, *self._qualified] if "::" not in name
        )
        prefix = ruleset.prefix_pattern
        self._prefix = re.compile(prefix.pattern.encode()) if prefix is not None else None
        self._calls: dict[tuple[str, str], tuple[CallRewrite, ...]] = load_call_rewrites(ruleset.tables.get("calls"))
        self._ptx: Any = None  # rules/ptx.toml compiled, when a file first has inline assembly
        self._markers: dict[str, re.Pattern[bytes]] = {}  # compiled when a file of that target needs them
        self._target_header_names: dict[str, frozenset[str]] = {}
        self._span_parser: Parser | None = None  # for IncrementalProfile.items: a function parsed alone

    # ---- parsing --------------------------------------------------------------------------------------------
    def parse(self, data: bytes, old_tree: Tree | None = None) -> Tree:
        return reparse(self.parser, data, old_tree)

    def parse_span(
        self, data: bytes, start: int, end: int, start_point: tuple[int, int], end_point: tuple[int, int]
    ) -> Tree:
        if self._span_parser is None:
            self._span_parser = Parser(CUDA_LANGUAGE)
        return parse_span(self._span_parser, data, start, end, start_point, end_point)

    # ---- analysis -------------------------------------------------------------------------------------------
    def facts(self, data: bytes, tree: Tree, context: FileContext) -> CFileFacts:
        scan = Scan(data, tree.root_node, context, self.ruleset, None)
        target = self.ruleset.targets.get(context.target)
        guards = self._guards(scan, target) if target is not None else None
        seen: set[str] = set()
        includes = []
        for quoted, name in self._include_names(scan):
            if name not in seen:
                seen.add(name)
                includes.append((quoted, name))
        suppressions: tuple[bytes, ...] = ()
        if context.has(data, b"ignore-file"):
            suppressions = tuple(m.group(0) for m in _FILE_SUPPRESSION_LINE.finditer(data))
        return CFileFacts(
            guards=tuple(guards.spans()) if guards else (),
            shims=tuple(sorted(self._local_shims(scan, target).items())) if target is not None else (),
            includes=tuple(includes),
            first_code_line=_first_code_line(scan),
            file_suppressions=suppressions,
        )

    def analyze(
        self, data: bytes, tree: Tree, context: FileContext, ranges: list[tuple[int, int]] | None = None
    ) -> list[Finding]:
        scan = Scan(data, tree.root_node, context, self.ruleset, ranges)
        findings: list[Finding] = []
        findings.extend(self._names(scan))
        findings.extend(self._headers(scan))
        findings.extend(self._implicit_runtime(scan))
        if scan.has(b"asm"):
            findings.extend(self._inline_asm(scan))
        findings.extend(warp.find_warp_assumptions(scan))
        findings.extend(kernels.find_kernels(scan))
        findings.extend(vectorops.find_vector_operators(scan))
        findings.extend(pointers.find_pointer_arithmetic(scan))
        findings.extend(clangdiff.find_clang_differences(scan))
        init = self._runtime_init(scan, findings)
        if init is not None:
            findings.append(init)
        for finding in findings:
            if (
                finding.rule in _WHOLE_STATEMENT_RULES
                and finding.fix is None
                and finding.difficulty == Difficulty.MANUAL
            ):
                statement = ancestor(node_at(scan.root, finding.start, finding.end), _STATEMENTS)
                if statement is not None:
                    scan.manual_calls.append((statement.start_byte, statement.end_byte, finding.symbol))
        if scan.manual_calls:
            _leave_calls_whole(scan.manual_calls, findings)
        _collapsing_overloads(scan, findings)
        if findings:
            self._mark_already_ported(scan, findings)
        if scan.call_sites:
            self._port_arguments(scan, findings)
        findings.sort(key=Finding.sort_key)
        return findings

    def _inline_asm(self, scan: Scan) -> Iterator[Finding]:
        from . import ptx  # its table's patterns take a while to compile: only files with `asm` need them

        if self._ptx is None:
            self._ptx = ptx.PtxTable.load(self.ruleset.tables.get("ptx"), self.ruleset.targets)
        return ptx.find_inline_asm(scan, self._ptx)

    # ---- names: symbols and namespaces ----------------------------------------------------------------------
    def _names(self, scan: Scan) -> Iterator[Finding]:
        words = scan.words
        symbol_words = words & self._symbol_words
        namespace_words = words & self._namespace_words
        if self._prefix is not None:
            symbol_words |= {w for w in words if self._prefix.match(w) and w not in self._symbol_words}
        wanted = symbol_words | namespace_words
        if not wanted:
            return
        hits: list[tuple[int, int, str, Node, bool]] = []
        user_defined: set[str] = set()
        for start, end, word in _occurrences(scan.data, wanted, scan.windows):
            if not scan.wanted(start):
                continue
            found = scan.code_node(start, end)
            if found is None:
                continue
            node, in_macro = found
            name = word.decode()
            member = self._is_member(name)
            if in_macro and member and not _after_member_access(scan.data, start):
                continue
            if not in_macro and (node.type == "field_identifier") != member:
                continue  # a struct field is only a finding when the name is a field of a CUDA struct
            if _declares_field(node):
                user_defined.add(name)  # the user's own struct declares a field of that name
                continue
            if not in_macro and _defines_function(node):
                user_defined.add(name)  # the user's own function of that name: none of its uses are CUDA's
                continue
            hits.append((start, end, name, node, in_macro))
        if scan.ranges is not None and hits:
            user_defined |= self._declared_elsewhere(scan, {name for _, _, name, _, _ in hits} - user_defined)
        # A name only the rule data's prefixes match (`nvmlCheck`) that the project defines as a macro, here or in
        # its own headers, is the project's wrapper: the CUDA calls it wraps are the findings, not the wrapper.
        guessed = {name for _, _, name, _, _ in hits if name.encode() not in self._symbol_words} - user_defined
        if guessed:
            user_defined |= guessed & (_macros_defined(scan.data, guessed) | scan.context.project_macros())
        for start, end, name, node, in_macro in hits:
            if name in user_defined:
                continue
            finding: Finding | None = None
            if name.encode() in namespace_words and self._is_namespace_use(node, in_macro):
                if self._claimed_by_scoped_symbol(node):
                    continue  # `cutlass::ceil_div`: the qualified name is one finding of its own
                namespace = self._namespace_symbol(name, node)
                if namespace is not None:
                    finding = self._namespace_finding(scan, start, end, name, namespace)
            else:
                finding = self._symbol_finding(scan, start, end, name, node, in_macro)
            if finding is not None:
                yield finding

    def _claimed_by_scoped_symbol(self, scope: Node) -> bool:
        """`scope` qualifies a name that a symbol row with scopes claims (`cutlass` in `cutlass::ceil_div`)."""
        qualified = scope.parent
        if qualified is None or qualified.type != "qualified_identifier":
            return False
        last = qualified
        while (name := last.child_by_field_name("name")) is not None and name.type == "qualified_identifier":
            last = name
        if name is None:
            return False
        symbol = self.ruleset.symbols.get(text(name))
        if symbol is None or not symbol.scopes:
            return False
        _, written = _qualified_name(name)
        return written in symbol.scopes

    def _is_member(self, name: str) -> bool:
        symbol = self.ruleset.symbols.get(name)
        return symbol is not None and symbol.kind == "member"

    def _namespace_symbol(self, name: str, node: Node) -> Symbol | None:
        """The namespace row for this use: a qualified row (`thrust::cuda`) whose scopes match, else the plain
        row, unless an enclosing namespace already has a row (`nvcuda::wmma` is one use of tensor cores)."""
        scopes = _enclosing_scopes(node)
        written = "::".join([*scopes, name])
        for candidate in self._qualified.get(name, ()):
            if written == candidate.name or written.endswith("::" + candidate.name):
                return candidate
        if scopes and scopes[-1] in self.ruleset.namespaces:
            return None
        return self.ruleset.namespaces.get(name)

    @staticmethod
    def _is_namespace_use(node: Node, in_macro: bool) -> bool:
        if in_macro:
            return False
        parent = node.parent
        if (
            parent is not None
            and parent.type == "namespace_alias_definition"
            and parent.child_by_field_name("name") == node
        ):
            return False  # `namespace cub = hipcub;` names an alias: the library is what it stands for
        if node.type == "namespace_identifier":
            return True
        parent = node.parent
        return node.type == "identifier" and parent is not None and parent.type == "using_declaration"

    def _namespace_finding(self, scan: Scan, start: int, end: int, name: str, symbol: Symbol) -> Finding:
        outcome = self.ruleset.outcome(symbol, scan.context.target)
        replacement = outcome.replacement
        if replacement and "::" in symbol.name:  # the edit replaces the last component only
            outcome = Outcome(outcome.difficulty, replacement.rsplit("::", 1)[-1], outcome.message, outcome.rewrite)
        return scan.finding(
            symbol.rule,
            start,
            end,
            outcome,
            symbol.name,
            self._rename_fix(name, outcome, start, end),
            {"library": symbol.library, "kind": "namespace"},
        )

    def _symbol_finding(
        self, scan: Scan, start: int, end: int, name: str, node: Node, in_macro: bool
    ) -> Finding | None:
        symbol = self.ruleset.symbol(name)
        if symbol is None or symbol.quiet:
            return None
        if symbol.generic and not self._generic_counts(symbol, node, in_macro, _is_cuda_source(scan)):
            return None
        if symbol.within and not any(scan.mentions(word) for word in symbol.within):
            return None
        if node.type not in _NAME_NODES and node.type not in ("preproc_arg", "ERROR") and node.type != name:
            return None  # (the grammar's own CUDA keywords, `__grid_constant__`, are nodes of their own type)
        target = scan.context.target
        if symbol.kind == "guard":
            return self._guard_finding(scan, start, end, name, node, in_macro, symbol)
        if symbol.scopes:
            if in_macro:
                return None
            outer, scope = _qualified_name(node)
            if scope not in symbol.scopes:
                return None  # `myns::getStreamFromPool`: somebody else's function of that name
            start, end, name = outer.start_byte, outer.end_byte, "".join(text(outer).split())
            node = outer
        if _device_side_runtime_call(symbol, node, in_macro):
            return kernels.device_side(scan, start, end, name, "function")
        outcome = self.ruleset.outcome(symbol, target)
        calls = self._calls.get((symbol.name, target))
        dual: Fix | None = None
        held = False
        if calls is not None:
            # The counterpart takes other arguments: only the whole-call rewrite is right, never a bare rename.
            fitted = None if in_macro else self._call_fix(scan, node, calls)
            if fitted is not None:
                call, fix = fitted
                level = Difficulty.MECHANICAL if fix.is_safe else Difficulty.MANUAL
                # `replacement` names the counterpart (what the finding's span becomes); the edit carries the whole call
                outcome = Outcome(max(outcome.difficulty, level), call.callee, outcome.message, True)
                dual = self._dual_call(scan, node, symbol, calls, call, fix)
            else:
                fix = None
                held = True  # a header mapping the name does not make this call fit the counterpart
                span = _macro_call_span(scan.data, end, node.end_byte) if in_macro else _node_span(call_of(node))
                if span is not None:
                    scan.manual_calls.append((*span, name))
                shape = next((c.shape for c in calls if c.shape), "")
                message = (
                    t("{message}; rewrite this call by hand: {shape}", message=outcome.message, shape=t(shape))
                    if shape
                    else t("{message}; rewrite this call by hand", message=outcome.message)
                )
                outcome = Outcome(max(outcome.difficulty, Difficulty.MANUAL), None, message, False)
        else:
            fix = self._rename_fix(name, outcome, start, end, scan.data)
            dual = self._dual_name(scan, symbol, name, outcome, fix)
        finding = scan.finding(
            symbol.rule, start, end, outcome, name, fix, {"library": symbol.library, "kind": symbol.kind}
        )
        finding.dual = dual
        if held:
            finding.data["held"] = "1"
        return finding

    # ---- dual-stack fixes: the code keeps CUDA's names, the portability header maps them ----------------------
    def _dual_target(self, scan: Scan) -> Target | None:
        """The target, when this file gets dual-stack fixes (a target whose port is a rename, a plan, and not the
        portability header itself)."""
        plan = scan.context.dual
        target = self.ruleset.targets.get(scan.context.target)
        if plan is None or plan.is_header or target is None or not target.dual_stack:
            return None
        return target

    def _dual_name(self, scan: Scan, symbol: Symbol, name: str, outcome: Outcome, fix: Fix | None) -> Fix | None:
        """`#define cudaX hipX` in the portability header, for a plain name whose rename is safe everywhere it is
        used. Not for a plain word that is CUDA's only in some positions (a macro would rename every use), nor a
        qualified name (a macro names one identifier)."""
        if fix is None or not fix.is_safe or outcome.replacement is None or self._dual_target(scan) is None:
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

    def _name_insertion(self, scan: Scan) -> tuple[Edit, ...]:
        """The portability header's include for a file that uses CUDA names but reaches no CUDA header (a helper
        header relying on its includer's): included there too, so the mapping holds wherever the file is used."""
        if scan.name_insertion is None:
            names = {name for _, name in self._include_names(scan)} | (scan.context.includes or set())
            reaches = any(_is_compat(scan, name) or self._becomes_compat(name, scan.context.target) for name in names)
            scan.name_insertion = (None if reaches else self._compat_insertion(scan),)
        insertion = scan.name_insertion[0]
        return (insertion,) if insertion is not None else ()

    def _dual_call(
        self, scan: Scan, node: Node, symbol: Symbol, calls: tuple[CallRewrite, ...], call: CallRewrite, fix: Fix
    ) -> Fix | None:
        """A call whose counterpart takes other arguments: a function-like macro in the portability header (the
        same templates), or the rewrite itself where it names nothing of the target (integer arithmetic)."""
        if not fix.is_safe or self._dual_target(scan) is None:
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

    def _guard_finding(
        self, scan: Scan, start: int, end: int, name: str, node: Node, in_macro: bool, symbol: Symbol
    ) -> Finding | None:
        """A CUDA header's macro counts where it is tested (`#ifdef`, `defined(...)`) or defined; anywhere else
        (`CUSPARSEAPI` as a calling convention in a declaration, a macro body) it is the header's business."""
        data = FindingData(library=symbol.library, kind=symbol.kind)
        if not in_macro and in_preproc_condition(node):
            outcome = self.ruleset.outcome(symbol, scan.context.target)
            fix = self._rename_fix(name, outcome, start, end)
            finding = scan.finding(symbol.rule, start, end, outcome, name, fix, data)
            directive = ancestor(node, _DIRECTIVES)
            if outcome.replacement and directive is not None and _tests_name(scan.data, directive, outcome.replacement):
                _downgrade(finding, t("the same directive tests `{name}` too", name=outcome.replacement))
            elif fix is not None and fix.is_safe and outcome.replacement and self._dual_target(scan) is not None:
                finding.dual = _dual_guard(scan.data, node, name, outcome.replacement)
            return finding
        if not in_macro and defines_macro(node):
            rule = self.ruleset.rule(symbol.rule)
            message = self.ruleset.format_message(rule, "defined", scan.context.target, symbol, "")
            return scan.finding(
                symbol.rule, start, end, Outcome(Difficulty.MANUAL, None, message, False), name, None, data
            )
        return None

    @staticmethod
    def _generic_counts(symbol: Symbol, node: Node, in_macro: bool, cuda_source: bool) -> bool:
        """A plain name counts in a CUDA position: called in device code, or, for CUDA's host-and-device functions
        (`umin`, flag `host`), called anywhere in a .cu/.cuh file; a type where a type is written."""
        if in_macro:
            return False
        if symbol.kind in _CALLABLE_KINDS:
            return is_called(node) and (in_device_code(node) or ("host" in symbol.flags and cuda_source))
        return node.type == "type_identifier"

    @staticmethod
    def _rename_fix(name: str, outcome: Outcome, start: int, end: int, data: bytes = b"") -> Fix | None:
        if not outcome.rewrite or outcome.replacement is None:
            return None
        safe = outcome.difficulty <= Difficulty.MECHANICAL
        applicability = Applicability.SAFE if safe else Applicability.UNSAFE
        if not outcome.replacement:  # nothing in its place: the name goes, with one of the blanks around it
            if end < len(data) and data[end] in b" \t":
                end += 1
            elif start > 0 and data[start - 1] in b" \t":
                start -= 1
            return Fix(t("Remove `{name}`", name=name), (Edit(start, end, ""),), applicability)
        return Fix(
            title=t("Replace `{name}` with `{replacement}`", name=name, replacement=outcome.replacement),
            edits=(Edit(start, end, outcome.replacement),),
            applicability=applicability,
        )

    @staticmethod
    def _call_fix(scan: Scan, node: Node, calls: tuple[CallRewrite, ...]) -> tuple[CallRewrite, Fix] | None:
        """The first template that fits this call, with its edit; None when none does (or it is no call)."""
        expression = call_of(node)
        if expression is None:
            return None
        arguments = expression.child_by_field_name("arguments")
        if arguments is None or arguments.has_error:
            return None
        nodes = [a for a in arguments.named_children if a.type != "comment"]
        args = [scan.data[a.start_byte : a.end_byte].decode() for a in nodes]

        def pure(index: int) -> bool:
            return _side_effect_free(nodes[index - 1])

        for call in calls:
            if any(_mentions(scan.data, word) for word in call.unless_file_mentions):
                continue
            rendered = call.render(args, pure=pure)
            if rendered is None:
                continue
            start, end = expression.start_byte, expression.end_byte
            fix = Fix(title=call.title(rendered), edits=(Edit(start, end, rendered),), applicability=call.applicability)
            spans = tuple((a.start_byte, a.end_byte) for a in nodes)
            scan.call_sites.append(CallSite(call, start, end, spans, tuple(args), pure, rendered))
            return call, fix
        return None

    def _port_arguments(self, scan: Scan, findings: list[Finding]) -> None:
        """A call rewritten whole writes its arguments as they read once ported (`aclrtMemcpy(p, n, q, n,
        ACL_MEMCPY_HOST_TO_DEVICE)`), with the safe renames of the names inside them: its title shows what the
        fix writes, and one pass of `fix` gives what two gave (the CUDA copy kind was renamed on the second)."""
        by_edit: dict[tuple[int, int, str], Finding] = {}
        for finding in findings:
            if finding.fix is not None and len(finding.fix.edits) == 1:
                edit = finding.fix.edits[0]
                by_edit[(edit.start, edit.end, edit.text)] = finding
        by_start = sorted(findings, key=lambda f: f.start)  # an argument's findings by bisection, not a pass each
        starts = [f.start for f in by_start]
        for site in sorted(scan.call_sites, key=lambda s: s.end - s.start):  # a call inside an argument first
            call = by_edit.get((site.start, site.end, site.text))
            if call is None or call.fix is None:
                continue
            stuck = self._stuck_in_repeated(site, by_start, starts)
            if stuck is not None:
                call.fix = None
                call.difficulty = max(call.difficulty, Difficulty.MANUAL)
                call.message = t(
                    "{message}; the rewrite writes `{argument}` twice, and `{name}` in it needs a person first",
                    message=call.message,
                    argument=stuck[0],
                    name=stuck[1],
                )
                inside = [f for f in findings if f.fix is not None or f.dual is not None]
                _leave_calls_whole([(site.start, site.end, call.symbol)], inside)
                continue
            written = [
                self._ported_argument(scan, by_start, starts, lo, hi, spelled)
                for (lo, hi), spelled in zip(site.arguments, site.spelled, strict=True)
            ]
            if written == list(site.spelled):
                continue
            rendered = site.rewrite.render(site.spelled, pure=site.pure, written=written)
            if rendered is None:
                continue
            applicability = call.fix.applicability
            call.fix = Fix(site.rewrite.title(rendered), (Edit(site.start, site.end, rendered),), applicability)

    @staticmethod
    def _stuck_in_repeated(site: CallSite, by_start: list[Finding], starts: list[int]) -> tuple[str, str] | None:
        """An argument the template writes twice with a finding in it that no safe fix ports: the rewrite would
        make a second copy of work left for a person. (argument, name), or None."""
        for index in site.rewrite.repeated:
            if index > len(site.arguments):
                continue
            lo, hi = site.arguments[index - 1]
            for finding in by_start[bisect.bisect_left(starts, lo) : bisect.bisect_left(starts, hi)]:
                unported = finding.fix is None or not finding.fix.is_safe
                if unported and finding.difficulty > Difficulty.PORTABLE:
                    return " ".join(site.spelled[index - 1].split()), finding.symbol
        return None

    def _ported_argument(
        self, scan: Scan, by_start: list[Finding], starts: list[int], lo: int, hi: int, spelled: str
    ) -> str:
        """An argument with the safe fixes of the findings inside it applied (those that do not overlap);
        `by_start` holds the findings sorted by their start, `starts` those starts."""
        if scan.ranges is not None and not any(a <= lo and hi <= b for a, b in scan.ranges):
            # A ranged analysis that saw only part of the call (an edit on one line of a call over several): the
            # argument's own names are looked for as a whole-file analysis finds them.
            inner = Scan(scan.data, scan.root, scan.context, self.ruleset, [(lo, hi)])
            found = list(self._names(inner))
            self._port_arguments(inner, found)
        else:
            found = by_start[bisect.bisect_left(starts, lo) : bisect.bisect_left(starts, hi)]
        edits: list[Edit] = []
        taken = lo
        for finding in sorted(found, key=Finding.sort_key):
            fix = finding.fix
            if fix is None or not fix.is_safe or not all(lo <= e.start and e.end <= hi for e in fix.edits):
                continue
            ordered = sorted(fix.edits, key=lambda e: (e.start, e.end))
            if ordered[0].start < taken:
                continue  # overlaps a fix already taken (a rename inside a call rewritten whole)
            edits.extend(ordered)
            taken = ordered[-1].end
        if not edits:
            return spelled
        piece = apply_edits(scan.data[lo:hi], [Edit(e.start - lo, e.end - lo, e.text) for e in edits])
        return piece.decode("utf-8", "replace")

    # ---- explicit runtime initialisation (ACL) ----------------------------------------------------------------
    def _runtime_init(self, scan: Scan, findings: list[Finding]) -> Finding | None:
        """One finding for a file that uses a runtime needing explicit initialisation but never initialises it:
        at the first CUDA call that becomes a call of that runtime, or the first such call already there."""
        target = self.ruleset.targets.get(scan.context.target)
        init = target.init if target is not None else None
        if target is None or init is None or not init.triggers or init.rule not in self.ruleset.rules:
            return None
        if init.provided_by and self._includes_any(scan, init.provided_by):
            return None  # a framework (torch_npu) initialises the runtime before this code runs
        first: tuple[int, int, str] | None = None
        for finding in findings:
            symbol = self.ruleset.symbols.get(finding.symbol)
            mapping = self.ruleset.mapping(symbol, target.name) if symbol is not None else None
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
        outcome = self.ruleset.outcome(Symbol(init.call, "function", init.rule, "runtime", {}), target.name)
        return scan.finding(init.rule, first[0], first[1], outcome, first[2], data={"kind": "initialisation"})

    def _includes_any(self, scan: Scan, patterns: tuple[str, ...]) -> bool:
        """Whether the file, or a project header it includes, includes a header matching one of `patterns`."""
        names = {name for _, name in self._include_names(scan)} | (scan.context.includes or set())
        return any(fnmatch.fnmatchcase(name, pattern) for name in names for pattern in patterns)

    # ---- headers --------------------------------------------------------------------------------------------
    def _headers(self, scan: Scan) -> Iterator[Finding]:
        if not scan.has(b"include"):
            return
        target = scan.context.target
        known = self.ruleset.targets.get(target)
        for match in (m for lo, hi in scan.windows for m in _INCLUDE.finditer(scan.data, lo, hi)):
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
            symbol = _concrete_header(symbol, path, target)
            outcome = self.ruleset.outcome(symbol, target)
            fix = self._rename_fix(path, outcome, start, end)
            if fix is not None and known is not None and outcome.replacement in known.after_runtime:
                fix = self._runtime_first(scan, known, fix, match.start())
            finding = scan.finding(
                symbol.rule, start, end, outcome, path, fix, {"library": symbol.library, "kind": "header"}
            )
            if fix is not None and fix.is_safe and outcome.replacement is not None:
                finding.dual = self._dual_include(scan, match, path, outcome.replacement)
            yield finding

    def _dual_include(self, scan: Scan, match: re.Match[bytes], path: str, replacement: str) -> Fix | None:
        """The CUDA include becomes the portability header (included once, where the file's first CUDA include
        was): a runtime header goes (the portability header includes it on either side); a library header is
        included through its macro, `#include CUDAPORT_CUBLAS_V2_H`, so the file keeps exactly its headers."""
        target = self._dual_target(scan)
        plan = scan.context.dual
        if target is None or plan is None:
            return None
        core = replacement in ("", target.runtime_include)
        line_start = scan.data.rfind(b"\n", 0, match.start()) + 1
        newline = scan.data.find(b"\n", match.end())
        line_end = len(scan.data) if newline == -1 else newline + 1
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

    def _becomes_compat(self, name: str, target: str) -> bool:
        """A CUDA header whose include a dual-stack fix turns into the portability header's (it has a counterpart,
        safely renamed); one without (npp.h) stays, and brings no mapping."""
        symbol = self.ruleset.header(name)
        if symbol is None:
            return False
        outcome = self.ruleset.outcome(_concrete_header(symbol, name, target), target)
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
        for quoted, name, match in self._include_lines(scan):
            if quoted and _is_compat(scan, name):
                return None
            if first_cuda is None and self.ruleset.header(name) is not None:
                first_cuda = scan.data.rfind(b"\n", 0, match.start()) + 1
        at = _first_code_line(scan) if _is_cu(scan) else first_cuda if first_cuda is not None else _header_top(scan)
        return Edit(at, at, f'#include "{plan.include}"{_newline(scan)}')

    def _runtime_first(self, scan: Scan, target: Target, fix: Fix, include_start: int) -> Fix:
        """A rename to a header that needs the runtime first (HIP's cooperative groups) also puts the runtime
        include before it, unless an earlier include of the file already brings the runtime."""
        at = self._runtime_insertion(scan, target)
        if at is None or at > include_start:
            return fix
        insertion = Edit(at, at, f"#include <{target.runtime_include}>{_newline(scan)}")
        title = t("{title}, after `#include <{header}>`", title=fix.title, header=target.runtime_include)
        return Fix(title, (insertion, *fix.edits), fix.applicability)

    def _runtime_insertion(self, scan: Scan, target: Target) -> int | None:
        """Where the runtime include goes when a fix adds it (None: an include already brings it first). In a .cu
        file at the top, where nvcc puts its implicit one; elsewhere before the first include whose target header
        needs it. Every fix that adds it uses this one place, so the edit is shared, never made twice."""
        for _, name, match in self._include_lines(scan):
            if self._declares_runtime(name, target):
                return None
            symbol = self.ruleset.header(name)
            mapping = self.ruleset.mapping(symbol, target.name) if symbol is not None else None
            if name in target.after_runtime or (mapping is not None and mapping.replacement in target.after_runtime):
                return _first_code_line(scan) if _is_cu(scan) else scan.data.rfind(b"\n", 0, match.start(2)) + 1
        return _first_code_line(scan)

    def _include_names(self, scan: Scan) -> list[tuple[bool, str]]:
        """(quoted, name) of the file's includes outside comments, worked out again only when a line that begins
        with `#` is edited (a comment opening or closing around one makes a session analyse the whole file)."""
        table = scan.context.lines(scan.data, b"#")
        return scan.context.remember(  # type: ignore[no-any-return]
            "include names", table.generation, lambda: [(q, n) for q, n, _ in self._include_lines(scan)]
        )

    @staticmethod
    def _include_lines(scan: Scan) -> Iterator[tuple[bool, str, re.Match[bytes]]]:
        """(quoted, name, match) of every `#include` line of the buffer outside comments, in order (from the lines
        that begin with `#`, which an editor session keeps)."""
        data = scan.data
        for line_start in scan.context.lines(data, b"#").starts:
            match = _INCLUDE_LINE.match(data, line_start)
            if match is None:
                continue
            node = scan.node_anywhere(*match.span(2))
            if node is not None and node.type == "comment":
                continue
            yield match.group(1) == b'"', match.group(2).decode("utf-8", "replace").strip(), match

    # ---- the runtime header nvcc includes implicitly ----------------------------------------------------------
    def _implicit_runtime(self, scan: Scan) -> Iterator[Finding]:
        """nvcc includes cuda_runtime.h at the top of every .cu file; hipcc includes nothing. A .cu file with
        kernels but no runtime include, or one that includes a project header using CUDA names before any runtime
        include (cuda-samples' helper_cuda.h tests `__CUDA_RUNTIME_H__`), needs the target's runtime include at
        the top, as hipify adds it."""
        target = self.ruleset.targets.get(scan.context.target)
        if target is None or not target.runtime_include or not _is_cu(scan):
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
        written = self._include_names(scan)
        followed = scan.context.includes
        names = {name for _, name in written} | (followed or set())
        if any(self._declares_runtime(name, target) or _is_compat(scan, name) for name in names):
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
        for quoted, name, match in self._include_lines(scan):
            if self._declares_runtime(name, target) or _is_compat(scan, name):
                return _RUNTIME_FIRST
            if self.ruleset.header(name) is not None:
                continue
            facts = scan.context.include_facts(name)
            if facts is None:
                continue
            if any(self._declares_runtime(n, target) for n in facts.names):
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
        at = _first_code_line(scan)
        fix = Fix(
            title=t("Add `#include <{header}>`", header=header),
            edits=(Edit(at, at, f"#include <{header}>{_newline(scan)}"),),
            applicability=Applicability.SAFE if difficulty <= Difficulty.MECHANICAL else Applicability.UNSAFE,
        )
        outcome = Outcome(difficulty, header, message, True)
        finding = scan.finding(rule.code, start, end, outcome, symbol, fix, {"kind": "include"})
        insertion = self._compat_insertion(scan) if self._dual_target(scan) is not None and fix.is_safe else None
        plan = scan.context.dual
        if insertion is not None and plan is not None:
            entry = CompatEntry("header", "cuda_runtime.h", header, True)
            finding.dual = Fix(
                t("Include {header} (dual-stack)", header=plan.header_name), (insertion,), compat=(entry,)
            )
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

    def _declares_runtime(self, name: str, target: Target) -> bool:
        """`cuda_runtime.h`, a CUDA header whose counterpart on the target is its runtime header (`cuda.h` on
        HIP), or the runtime header itself."""
        if name == target.runtime_include:
            return True
        symbol = self.ruleset.header(name)
        if symbol is None:
            return False
        if "runtime" in symbol.flags:
            return True  # PyTorch's ATen/c10 CUDA headers bring the runtime (its ROCm build: the HIP one)
        return self.ruleset.mapping(symbol, target.name).replacement == target.runtime_include

    def _declared_elsewhere(self, scan: Scan, names: set[str]) -> set[str]:
        """Names among `names` that the user defines (as functions or fields) outside the scanned windows. An
        editor session knows those it tracks (names the rule data knows as symbols or namespaces); others are
        looked for in the buffer."""
        known = scan.context.declared_elsewhere
        if known is None:
            return _declared_elsewhere(scan, names)
        functions, fields = known
        ruleset = self.ruleset
        tracked = {n for n in names if ruleset.symbol(n) is not None or n in ruleset.namespaces}
        # A field declaration makes only a CUDA struct field's name the user's own (as a whole-file scan finds).
        owned = (tracked & functions) | {n for n in tracked & fields if self._is_member(n)}
        return owned | _declared_elsewhere(scan, names - tracked)

    # ---- code already written for the target ----------------------------------------------------------------
    def _target_markers(self, target: Target) -> re.Pattern[bytes]:
        markers = self._markers.get(target.name)
        if markers is None:
            markers = self._markers[target.name] = re.compile(target.markers.pattern.encode())
        return markers

    def _guards(self, scan: Scan, target: Target) -> GuardIndex | None:
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

    def _local_shims(self, scan: Scan, target: Target) -> dict[str, str]:
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

    def _mark_already_ported(self, scan: Scan, findings: list[Finding]) -> None:
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
                guards = self._guards(scan, target)
                local_shims = self._local_shims(scan, target)
            region = guards.find(finding.start) if guards else None
            if region is not None:
                _downgrade(
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
                _downgrade(finding, _mapped(mapped, None))
                continue
            shim = scan.context.shims.get(finding.symbol)
            if shim is not None:
                _downgrade(finding, _mapped(shim.replacement, shim.header))
                continue
            value = _macro_defined_at(scan.data, finding)
            if value is not None:
                # `#define cudaMalloc musaMalloc`: a portability header for another platform defines the CUDA name
                # itself; renaming it would break that header, and nothing here calls CUDA.
                _downgrade(
                    finding, t("this file defines `{name}` itself (as `{value}`)", name=finding.symbol, value=value)
                )


def _dual_guard(data: bytes, node: Node, name: str, other: str) -> Fix | None:
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


def _mapped(replacement: str, header: str | None) -> str:
    """Why a finding is already ported: a #define in this file (`header` None) or a header it includes maps it."""
    if header is None:
        if replacement:
            return t("already mapped to `{replacement}` by a #define in this file", replacement=replacement)
        return t("already defined as nothing by a #define in this file")
    if replacement:
        return t("already mapped to `{replacement}` by {header}", replacement=replacement, header=header)
    return t("already defined as nothing by {header}", header=header)


def _is_compat(scan: Scan, name: str) -> bool:
    """The include name is the dual-stack portability header (which brings the runtime on either side)."""
    plan = scan.context.dual
    return plan is not None and (name == plan.include or name.rsplit("/", 1)[-1] == plan.header_name)


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


_DEFINE_HEAD = re.compile(rb"[ \t]*#[ \t]*define[ \t]+\Z")
_DEFINE_VALUE = re.compile(rb"(?:\([^)\n]*\))?[ \t]+([A-Za-z_][\w:]*)")


def _device_side_runtime_call(symbol: Symbol, node: Node, in_macro: bool) -> bool:
    """A host runtime function called in device code: CUDA's device-side runtime (dynamic parallelism)."""
    return (
        symbol.kind == "function"
        and symbol.rule in _HOST_RUNTIME_RULES
        and not in_macro
        and is_called(node)
        and in_device_code(node, only=True)
    )


def _macro_defined_at(data: bytes, finding: Finding) -> str | None:
    """The value of a `#define` whose name is the finding (`#define cudaMalloc musaMalloc` -> musaMalloc)."""
    line_start = data.rfind(b"\n", 0, finding.start) + 1
    if not _DEFINE_HEAD.match(data, line_start, finding.start):
        return None
    value = _DEFINE_VALUE.match(data, finding.end)
    return value.group(1).decode("utf-8", "replace") if value else None


def _occurrences(data: bytes, words: set[bytes], windows: list[tuple[int, int]]) -> list[tuple[int, int, bytes]]:
    """Every whole-word occurrence of `words` inside `windows`, in order. bytes.find runs in C at memory speed,
    which beats a regex alternation that must try every word at every position."""
    found = [
        (position, position + len(word), word)
        for lo, hi in windows
        for word in words
        for position in whole_words(data, word, lo, hi)
    ]
    found.sort()
    return found


def _is_cuda_source(scan: Scan) -> bool:
    return scan.context.path.lower().endswith((".cu", ".cuh"))


def _is_cu(scan: Scan) -> bool:
    return scan.context.path.lower().endswith(".cu")


def _newline(scan: Scan) -> str:
    """The line end of a line a fix inserts: CRLF in a file that has any (asked of the session's Presence, which
    an edit keeps current; a session analyses whole when the answer changes)."""
    return "\r\n" if scan.context.has(scan.data, b"\r\n") else "\n"


def _first_code_line(scan: Scan) -> int:
    """Where a new #include goes: the start of the line of the first thing that is not a comment."""
    root = scan.file_root
    for index in range(root.child_count):  # by index: a large file has thousands of top-level nodes
        child = root.child(index)
        if child is not None and child.type != "comment":
            return scan.data.rfind(b"\n", 0, child.start_byte) + 1
    return 0


def _header_top(scan: Scan) -> int:
    """Where a header's first include goes: after `#pragma once` or inside its include guard (after the guard's
    `#define`), else at its first line of code."""
    first = next((child for child in scan.file_root.children if child.type != "comment"), None)
    if first is None:
        return _first_code_line(scan)
    if first.type == "preproc_call" and "once" in scan.text_of(first):
        return first.end_byte if scan.data[first.end_byte - 1 : first.end_byte] == b"\n" else _first_code_line(scan)
    if first.type == "preproc_ifdef" and scan.text_of(first).lstrip().startswith("#ifndef"):
        name = first.child_by_field_name("name")
        body = [c for c in first.named_children if c != name and c.type != "comment"]
        if name is not None and body and body[0].type == "preproc_def":
            guard = body[0].child_by_field_name("name")
            if guard is not None and scan.text_of(guard) == scan.text_of(name):
                end = body[0].end_byte
                return end if scan.data[end - 1 : end] == b"\n" else scan.data.find(b"\n", end) + 1
    return _first_code_line(scan)


def _qualified_name(node: Node) -> tuple[Node, str]:
    """The whole qualified name `node` ends (`at::cuda::getCurrentCUDAStream` for its last part) and its
    qualifier as written without blanks (`at::cuda`; "" when unqualified)."""
    outer = node
    while (
        outer.parent is not None
        and outer.parent.type == "qualified_identifier"
        and outer.parent.child_by_field_name("name") == outer
    ):
        outer = outer.parent
    written = "".join(text(outer).split())
    tail = "".join(text(node).split())
    scope = written[: -len(tail)].removesuffix("::") if written.endswith(tail) else ""
    return outer, scope.removeprefix("::")


def _enclosing_scopes(node: Node) -> list[str]:
    """The namespaces written before `node` in a qualified name: ["nvcuda"] for the `wmma` of `nvcuda::wmma::x`."""
    qualified = node.parent
    if qualified is None or qualified.type != "qualified_identifier" or qualified.child_by_field_name("scope") != node:
        return []
    scopes: list[str] = []
    while True:
        outer = qualified.parent
        if outer is None or outer.type != "qualified_identifier" or outer.child_by_field_name("name") != qualified:
            return scopes
        scope = outer.child_by_field_name("scope")
        if scope is None or scope.type != "namespace_identifier":
            return scopes
        scopes.insert(0, text(scope))
        qualified = outer


def _defines_function(node: Node) -> bool:
    """`node` names the function of a definition with a body (`int cuCount(...) { ... }`). A prototype only
    re-declares the CUDA function, and half-typed code often parses a call as a declarator inside an ERROR."""
    declarator = node.parent
    if declarator is None or declarator.type != "function_declarator":
        return False
    outer = declarator.parent  # through `T* f(...)` and `T& f(...)` to the definition
    while outer is not None and outer.type in _RETURN_DECLARATORS:
        outer = outer.parent
    return outer is not None and outer.type == "function_definition" and outer.child_by_field_name("body") is not None


def _after_member_access(data: bytes, start: int) -> bool:
    """`.is_cuda` or `->is_cuda` in a macro body, which tree-sitter leaves as text."""
    before = data[max(0, start - 8) : start].rstrip()
    return before.endswith((b".", b"->"))


def _declares_field(node: Node) -> bool:
    """`node` names a field where a struct declares it, not where code reads it (`p.mpsEnabled`)."""
    return node.type == "field_identifier" and (node.parent is None or node.parent.type != "field_expression")


_SIDE_EFFECTS = frozenset({"call_expression", "update_expression", "assignment_expression", "comma_expression"})


def _side_effect_free(node: Node) -> bool:
    """An argument that may be written twice: no calls (sizeof is not one), increments or assignments."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in _SIDE_EFFECTS:
            return False
        stack.extend(current.named_children)
    return True


def _mentions(data: bytes, word: str) -> bool:
    """Whether the buffer names `word` as a whole word (bytes.find, stopping at the first: a look-behind regex
    would try every position of the buffer, for every call an editor re-analyses)."""
    return next(whole_words(data, word.encode()), None) is not None


def _node_span(node: Node | None) -> tuple[int, int] | None:
    return (node.start_byte, node.end_byte) if node is not None else None


def _macro_call_span(data: bytes, name_end: int, limit: int) -> tuple[int, int] | None:
    """The argument list after a name in a macro body, which tree-sitter leaves as text: to its closing
    parenthesis (string and character literals skipped), or None when the body ends first."""
    position = name_end
    while position < limit and data[position] in b" \t\\\r\n":
        position += 1
    if position >= limit or data[position] != 0x28:
        return None
    depth = 0
    quote = 0
    index = position
    while index < limit:
        byte = data[index]
        if quote:
            if byte == 0x5C:
                index += 1
            elif byte == quote:
                quote = 0
        elif byte in (0x22, 0x27):
            quote = byte
        elif byte == 0x28:
            depth += 1
        elif byte == 0x29:
            depth -= 1
            if depth == 0:
                return name_end, index + 1
        index += 1
    return None


_DIRECTIVES = frozenset({"preproc_if", "preproc_elif", "preproc_ifdef", "preproc_elifdef"})


def _tests_name(data: bytes, directive: Node, name: str) -> bool:
    """Whether the directive line (`#if ...`, through its continuation lines) names `name` as a whole word."""
    condition = directive.child_by_field_name("condition") or directive.child_by_field_name("name")
    if condition is None:
        return False
    line = data[directive.start_byte : condition.end_byte]
    return re.search(rb"(?<![\w$])" + re.escape(name.encode()) + rb"(?![\w$])", line) is not None


def _collapsing_overloads(scan: Scan, findings: list[Finding]) -> None:
    """Overloads that differ only in CUDA types the target merges: helper_cuda.h has `_cudaGetErrorEnum` for
    `cudaError_t` and for `CUresult`, which both become `hipError_t`, so the renamed file defines one function twice.
    The first overload keeps its rename (or is already on the target's type); the others are left for a person
    (they keep their CUDA type, and only fail to build where they are compiled: helper_cuda.h's `CUresult` one sits
    under `#ifdef CUDA_DRIVER_API`)."""
    groups: dict[tuple[str, int, str], list[tuple[int, Finding | None]]] = {}
    for finding in findings:
        if finding.data.get("kind") != "type" or not finding.replacement or finding.fix is None:
            continue
        slot = _parameter_slot(scan, node_at(scan.root, finding.start, finding.end))
        if slot is not None:
            groups.setdefault((*slot, finding.replacement), []).append((finding.start, finding))
    for (function, index, merged), members in groups.items():
        # overloads already written with the merged type count too: `fix` must not rename a second one next time
        members.extend((at, None) for at in _parameters_spelled(scan, function, index, merged))
        spellings = {finding.symbol if finding is not None else merged for _, finding in members}
        if len(spellings) < 2:
            continue  # a prototype and its definition, or overloads on one CUDA type: nothing merges
        members.sort(key=lambda member: member[0])
        # named by its type, not its line: a line number in a message goes stale as lines come and go above it
        first = members[0][1]
        first_type = first.symbol if first is not None else merged
        for _, later in members[1:]:
            if later is None:
                continue
            later.fix = None
            later.dual = None
            later.replacement = None
            later.data["held"] = "1"  # mapping both types to one in a header merges the overloads all the same
            later.difficulty = max(later.difficulty, Difficulty.MANUAL)
            later.message = t(
                "{message}; with the overload of `{function}` on `{first}` it becomes one function on `{merged}`: "
                "keep one of them",
                message=later.message,
                function=function,
                first=first_type,
                merged=merged,
            )


def _parameter_slot(scan: Scan, node: Node | None) -> tuple[str, int] | None:
    """(function name, parameter index) when `node` is the type of a parameter of a function declarator."""
    parameter = node.parent if node is not None else None
    if parameter is None or parameter.type != "parameter_declaration" or parameter.parent is None:
        return None
    declarator = parameter.parent.parent
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    if declarator is None or declarator.type != "function_declarator" or name is None:
        return None
    return scan.text_of(name), [c.id for c in parameter.parent.named_children].index(parameter.id)


def _parameters_spelled(scan: Scan, function: str, index: int, spelled: str) -> list[int]:
    """Starts of the parameter types written `spelled` at `index` in the file's declarations of `function`."""
    word = spelled.encode()
    if not scan.has(word):
        return []
    # bytes.find, not a regex starting with a lookbehind: this runs on every analysis of a file with overloads
    return [
        start
        for start, end, _ in _occurrences(scan.data, {word}, [(0, len(scan.data))])
        if _parameter_slot(scan, scan.node_anywhere(start, end)) == (function, index)
    ]


def _macros_defined(data: bytes, names: set[str]) -> set[str]:
    """The names among `names` that a `#define` of the buffer defines."""
    out = set()
    for name in names:
        for match in re.finditer(rb"#[ \t]*define[ \t]+" + re.escape(name.encode()) + rb"\b", data):
            if at_line_start(data, match.start()):
                out.add(name)
                break
    return out


def _leave_calls_whole(calls: list[tuple[int, int, str]], findings: list[Finding]) -> None:
    """A call a person rewrites keeps every argument as it is: renaming `cudaMemcpyHostToDevice` inside a
    `cudaMemcpy` left for a person would leave a line half CUDA, half the target's, that builds for neither."""
    for finding in findings:
        for start, end, callee in calls:
            if start <= finding.start < end and finding.symbol != callee:
                finding.fix = None
                finding.dual = None
                finding.replacement = None
                if finding.difficulty < Difficulty.MANUAL:
                    finding.difficulty = Difficulty.MANUAL
                finding.message = t(
                    "{message}; left as it is with `{callee}`, which a person rewrites",
                    message=finding.message,
                    callee=callee,
                )
                break


def _downgrade(finding: Finding, why: str) -> None:
    finding.difficulty = Difficulty.PORTABLE
    finding.fix = None
    finding.dual = None
    finding.replacement = None
    finding.message = t("{message} — {why}", message=finding.message, why=why)
    finding.data["ported"] = "1"


def _comment_test(scan: Scan) -> Callable[[int], bool]:
    """Comments can hide directives (`/* #endif */`): asks the tree about each directive's position, which is
    far cheaper than listing every comment of a large file."""

    def in_comment(offset: int) -> bool:
        node = scan.root_for(offset, offset + 1).descendant_for_byte_range(offset, offset + 1)
        return node is not None and node.type == "comment" and node.start_byte <= offset

    return in_comment


def _declared_elsewhere(scan: Scan, names: set[str]) -> set[str]:
    """Names among `names` that the user declares as functions outside the scanned windows (a ranged scan must
    still know that `cudaMalloc` is the user's own function when its definition lies elsewhere in the file)."""
    declared: set[str] = set()
    data = scan.data
    for name in names:
        word = name.encode()
        for position in whole_words(data, word):
            if _inside(scan.windows, position):
                continue
            found = scan.code_node(position, position + len(word))
            if found is not None and not found[1] and (_defines_function(found[0]) or _declares_field(found[0])):
                declared.add(name)
                break
    return declared


def _inside(windows: list[tuple[int, int]], offset: int) -> bool:
    return any(lo <= offset < hi for lo, hi in windows)


def _concrete_header(symbol: Symbol, path: str, target: str) -> Symbol:
    """A glob entry (`thrust/*`) made concrete for one include path."""
    if symbol.name == path:
        return symbol
    targets = {}
    stem = symbol.name.rstrip("*")
    rest = path[len(stem) :] if path.startswith(stem) else ""
    for name, mapping in symbol.targets.items():
        replacement = mapping.replacement.replace("*", rest) if "*" in mapping.replacement else mapping.replacement
        targets[name] = TargetMapping(replacement, mapping.difficulty, mapping.note)
    return Symbol(path, "header", symbol.rule, symbol.library, targets, symbol.flags, note=symbol.note)


def _kernel_syntax(scan: Scan) -> Iterator[re.Match[bytes]]:
    """The kernel syntax of a buffer, in order, from the first of its words (none: nothing is scanned)."""
    data = scan.data
    found = [at for at in (data.find(word) for word in _KERNEL_WORDS if scan.has(word)) if at >= 0]
    if not found:
        return iter(())
    return _KERNEL_SYNTAX.finditer(data, min(found))  # the lookbehind still sees the byte before `pos`
