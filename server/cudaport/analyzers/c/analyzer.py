"""CUDA, C and C++ sources: the analyzer's entry points, and the names of the rule data (symbols and namespaces)
found in a buffer. The other jobs have modules of their own, which the analyzer composes: headers and the runtime
include (includes), whole-call rewrites at their sites (callsites), dual-stack fixes (dualfixes), code already
written for the target (ported), overloads the renames would merge (overloads), and the pattern families
(warp-size assumptions, inline PTX, kernels, ...).

Speed comes from not walking the tree: a C-level regex finds the words that the rule data knows, and only those
positions are looked up in the tree to learn their context (comment, string, macro body, call, device code).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from tree_sitter import Node, Parser, Tree

from ...i18n import t
from ...knowledge.ruleset import Outcome, RuleSet, Symbol
from ...model.findings import Difficulty, Finding, FindingData, Fix
from ..common.base import FileContext, whole_words
from ..common.syntax import (
    ancestor,
    call_of,
    defines_macro,
    in_device_code,
    in_preproc_condition,
    is_called,
    parse_span,
    reparse,
    text,
)
from . import clangdiff, kernels, pointers, vectorops, warp
from .calls import CallRewrite, load_call_rewrites
from .callsites import ArgumentPorter, fit_call, leave_manual_calls_whole
from .dualfixes import DualStackFixes, dual_guard
from .includelines import first_code_line, include_names
from .includes import HeaderFinder, ImplicitRuntime, runtime_init_finding
from .incremental import FILE_SUPPRESSION_LINE, INCREMENTAL, CFileFacts
from .language import CUDA_LANGUAGE
from .names import CNames
from .overloads import hold_merging_overloads
from .ported import AlreadyPorted, mark_ported
from .prefilter import Prefilter
from .preprocessor import at_line_start
from .renames import rename_fix
from .scan import Scan

_NAME_NODES = frozenset({"identifier", "type_identifier", "namespace_identifier", "primitive_type", "field_identifier"})
_CALLABLE_KINDS = frozenset({"function", "device_function"})
_HOST_RUNTIME_RULES = frozenset({"CP1001", "CP1002"})  # host APIs: called in device code, they need CDP
_RETURN_DECLARATORS = frozenset({"pointer_declarator", "reference_declarator"})
_DIRECTIVES = frozenset({"preproc_if", "preproc_elif", "preproc_ifdef", "preproc_elifdef"})


class CFamilyAnalyzer:
    incremental = INCREMENTAL
    language = "c"

    def __init__(self, ruleset: RuleSet) -> None:
        self.ruleset = ruleset
        self.parser = Parser(CUDA_LANGUAGE)
        self.names = CNames(Parser(CUDA_LANGUAGE))  # what a fix's names mean to the file (cudaport.consistency)
        dual = DualStackFixes(ruleset)
        self._name_finder = NameFinder(ruleset, dual)
        self._headers = HeaderFinder(ruleset, dual)
        self._implicit_runtime = ImplicitRuntime(ruleset, dual)
        self._already_ported = AlreadyPorted(ruleset)
        self._arguments = ArgumentPorter(ruleset, self._name_finder.find)
        self._ptx: Any = None  # rules/ptx.toml compiled, when a file first has inline assembly
        self._span_parser: Parser | None = None  # for IncrementalProfile.items: a function parsed alone
        self._prefilter: Prefilter | None = None
        self._words: tuple[bytes, set[bytes]] | None = None  # the last buffer the prefilter read, and its words

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
    def skips(self, data: bytes, path: str, target: str) -> bool:
        """Whether a whole-file analysis of `data` for `target` is sure to find nothing (prefilter.py): then the
        file need not even be parsed."""
        if self._prefilter is None:
            finder = self._name_finder
            self._prefilter = Prefilter(self.ruleset, finder._symbol_words, finder._namespace_words, finder._prefix)
        known = self._words[1] if self._words is not None and self._words[0] is data else None
        keeps, words = self._prefilter.keeps(data, path, target, known)
        self._words = (data, words) if words is not None else None
        return not keeps

    def facts(self, data: bytes, tree: Tree, context: FileContext) -> CFileFacts:
        scan = Scan(data, tree.root_node, context, self.ruleset, None)
        target = self.ruleset.targets.get(context.target)
        guards = self._already_ported.guards(scan, target) if target is not None else None
        seen: set[str] = set()
        includes = []
        for quoted, name in include_names(scan):
            if name not in seen:
                seen.add(name)
                includes.append((quoted, name))
        suppressions: tuple[bytes, ...] = ()
        if context.has(data, b"ignore-file"):
            suppressions = tuple(m.group(0) for m in FILE_SUPPRESSION_LINE.finditer(data))
        shims = self._already_ported.local_shims(scan, target) if target is not None else {}
        return CFileFacts(
            guards=tuple(guards.spans()) if guards else (),
            shims=tuple(sorted(shims.items())),
            includes=tuple(includes),
            first_code_line=first_code_line(scan),
            file_suppressions=suppressions,
        )

    def analyze(
        self, data: bytes, tree: Tree, context: FileContext, ranges: list[tuple[int, int]] | None = None
    ) -> list[Finding]:
        scan = Scan(data, tree.root_node, context, self.ruleset, ranges)
        if ranges is None and self._words is not None and self._words[0] is data:
            scan._words = self._words[1]  # worked out by the prefilter
        # A finder added here adds the words it starts from to prefilter.py.
        findings: list[Finding] = []
        findings.extend(self._name_finder.find(scan))
        findings.extend(self._headers.find(scan))
        findings.extend(self._implicit_runtime.find(scan))
        if scan.has(b"asm"):
            findings.extend(self._inline_asm(scan))
        findings.extend(warp.find_warp_assumptions(scan))
        findings.extend(kernels.find_kernels(scan))
        findings.extend(vectorops.find_vector_operators(scan))
        findings.extend(pointers.find_pointer_arithmetic(scan))
        findings.extend(clangdiff.find_clang_differences(scan))
        init = runtime_init_finding(self.ruleset, scan, findings)
        if init is not None:
            findings.append(init)
        leave_manual_calls_whole(scan, findings)
        hold_merging_overloads(scan, findings)
        if findings:
            self._already_ported.mark(scan, findings)
        if scan.call_sites:
            self._arguments.port(scan, findings)
        findings.sort(key=Finding.sort_key)
        return findings

    def _inline_asm(self, scan: Scan) -> Iterator[Finding]:
        from . import ptx  # its table's patterns take a while to compile: only files with `asm` need them

        if self._ptx is None:
            self._ptx = ptx.PtxTable.load(self.ruleset.tables.get("ptx"), self.ruleset.targets)
        return ptx.find_inline_asm(scan, self._ptx)


class NameFinder:
    """The rule data's names in a buffer: CUDA's symbols (functions, types, macros, struct members), each with its
    rename or whole-call rewrite, and the namespaces of its libraries."""

    def __init__(self, ruleset: RuleSet, dual: DualStackFixes) -> None:
        self.ruleset = ruleset
        self.dual = dual
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

    def find(self, scan: Scan) -> Iterator[Finding]:
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
            if name.encode() in namespace_words and _is_namespace_use(node, in_macro):
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
            rename_fix(name, outcome, start, end),
            {"library": symbol.library, "kind": "namespace"},
        )

    def _symbol_finding(
        self, scan: Scan, start: int, end: int, name: str, node: Node, in_macro: bool
    ) -> Finding | None:
        symbol = self.ruleset.symbol(name)
        if symbol is None or symbol.quiet:
            return None
        if symbol.generic and not _generic_counts(symbol, node, in_macro, _is_cuda_source(scan)):
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
            fitted = None if in_macro else fit_call(scan, node, calls)
            if fitted is not None:
                call, fix = fitted
                level = Difficulty.MECHANICAL if fix.is_safe else Difficulty.MANUAL
                # `replacement` names the counterpart (what the finding's span becomes); the edit carries the whole call
                outcome = Outcome(max(outcome.difficulty, level), call.callee, outcome.message, True)
                dual = self.dual.for_call(scan, node, symbol, calls, call, fix)
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
            fix = rename_fix(name, outcome, start, end, scan.data)
            dual = self.dual.for_name(scan, symbol, name, outcome, fix)
        finding = scan.finding(
            symbol.rule, start, end, outcome, name, fix, {"library": symbol.library, "kind": symbol.kind}
        )
        finding.dual = dual
        if held:
            finding.data["held"] = "1"
        return finding

    def _guard_finding(
        self, scan: Scan, start: int, end: int, name: str, node: Node, in_macro: bool, symbol: Symbol
    ) -> Finding | None:
        """A CUDA header's macro counts where it is tested (`#ifdef`, `defined(...)`) or defined; anywhere else
        (`CUSPARSEAPI` as a calling convention in a declaration, a macro body) it is the header's business."""
        data = FindingData(library=symbol.library, kind=symbol.kind)
        if not in_macro and in_preproc_condition(node):
            outcome = self.ruleset.outcome(symbol, scan.context.target)
            fix = rename_fix(name, outcome, start, end)
            finding = scan.finding(symbol.rule, start, end, outcome, name, fix, data)
            directive = ancestor(node, _DIRECTIVES)
            if outcome.replacement and directive is not None and _tests_name(scan.data, directive, outcome.replacement):
                mark_ported(finding, t("the same directive tests `{name}` too", name=outcome.replacement))
            elif fix is not None and fix.is_safe and outcome.replacement and self.dual.target(scan) is not None:
                finding.dual = dual_guard(scan.data, node, name, outcome.replacement)
            return finding
        if not in_macro and defines_macro(node):
            rule = self.ruleset.rule(symbol.rule)
            message = self.ruleset.format_message(rule, "defined", scan.context.target, symbol, "")
            return scan.finding(
                symbol.rule, start, end, Outcome(Difficulty.MANUAL, None, message, False), name, None, data
            )
        return None

    def _declared_elsewhere(self, scan: Scan, names: set[str]) -> set[str]:
        """Names among `names` that the user defines (as functions or fields) outside the scanned windows. An
        editor session knows those it tracks (names the rule data knows as symbols or namespaces); others are
        looked for in the buffer."""
        known = scan.context.declared_elsewhere
        if known is None:
            return _declared_outside(scan, names)
        functions, fields = known
        ruleset = self.ruleset
        tracked = {n for n in names if ruleset.symbol(n) is not None or n in ruleset.namespaces}
        # A field declaration makes only a CUDA struct field's name the user's own (as a whole-file scan finds).
        owned = (tracked & functions) | {n for n in tracked & fields if self._is_member(n)}
        return owned | _declared_outside(scan, names - tracked)


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


def _generic_counts(symbol: Symbol, node: Node, in_macro: bool, cuda_source: bool) -> bool:
    """A plain name counts in a CUDA position: called in device code, or, for CUDA's host-and-device functions
    (`umin`, flag `host`), called anywhere in a .cu/.cuh file; a type where a type is written."""
    if in_macro:
        return False
    if symbol.kind in _CALLABLE_KINDS:
        return is_called(node) and (in_device_code(node) or ("host" in symbol.flags and cuda_source))
    return node.type == "type_identifier"


def _device_side_runtime_call(symbol: Symbol, node: Node, in_macro: bool) -> bool:
    """A host runtime function called in device code: CUDA's device-side runtime (dynamic parallelism)."""
    return (
        symbol.kind == "function"
        and symbol.rule in _HOST_RUNTIME_RULES
        and not in_macro
        and is_called(node)
        and in_device_code(node, only=True)
    )


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


def _tests_name(data: bytes, directive: Node, name: str) -> bool:
    """Whether the directive line (`#if ...`, through its continuation lines) names `name` as a whole word."""
    condition = directive.child_by_field_name("condition") or directive.child_by_field_name("name")
    if condition is None:
        return False
    line = data[directive.start_byte : condition.end_byte]
    return re.search(rb"(?<![\w$])" + re.escape(name.encode()) + rb"(?![\w$])", line) is not None


def _macros_defined(data: bytes, names: set[str]) -> set[str]:
    """The names among `names` that a `#define` of the buffer defines."""
    out = set()
    for name in names:
        for match in re.finditer(rb"#[ \t]*define[ \t]+" + re.escape(name.encode()) + rb"\b", data):
            if at_line_start(data, match.start()):
                out.add(name)
                break
    return out


def _declared_outside(scan: Scan, names: set[str]) -> set[str]:
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
