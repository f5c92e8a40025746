"""CUDA, C and C++ sources: names from the rule data, headers, namespaces, then the pattern families
(warp-size assumptions, inline PTX) in their own modules.

Speed comes from not walking the tree: a C-level regex finds the words that the rule data knows, and only those
positions are looked up in the tree to learn their context (comment, string, macro body, call, device code).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import tree_sitter_cuda
from tree_sitter import Language, Node, Parser, Tree

from ..models import Applicability, Difficulty, Edit, Finding, Fix
from ..ruleset import Outcome, RuleSet, Symbol, TargetMapping
from . import ptx, warp
from .base import FileContext, search_windows
from .calls import CallRewrite, load_call_rewrites
from .clex import in_spans, literal_and_comment_spans
from .preproc import GuardIndex, guarded_regions, shim_definitions
from .tsutil import C_COMMENT_OR_STRING, in_device_code, is_called, node_at

CUDA_LANGUAGE = Language(tree_sitter_cuda.language())

_WORD = re.compile(rb"[A-Za-z_]\w*")
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.MULTILINE)
_NAME_NODES = frozenset({"identifier", "type_identifier", "namespace_identifier", "primitive_type"})
_CALLABLE_KINDS = frozenset({"function", "device_function"})


@dataclass
class Scan:
    """Per-buffer state shared by the finders: the tree, the target, lazily computed facts."""

    data: bytes
    root: Node
    context: FileContext
    ruleset: RuleSet
    ranges: list[tuple[int, int]] | None
    _macro_spans: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    # The parts of the buffer the finders scan: all of it, or the ranges widened to whole lines (an editor
    # re-analysing a few edited lines must not pay for a scan of the whole file).
    windows: list[tuple[int, int]] = field(init=False)

    def __post_init__(self) -> None:
        self.windows = search_windows(self.data, self.ranges)

    def wanted(self, start: int) -> bool:
        if self.ranges is None:
            return True
        return any(lo <= start < hi for lo, hi in self.ranges)

    def code_node(self, start: int, end: int) -> tuple[Node, bool] | None:
        """The node for a token at [start, end) and whether it sits in a macro body; None in comments/strings."""
        node = node_at(self.root, start, end)
        if node is None or node.type in C_COMMENT_OR_STRING:
            return None
        if node.type == "preproc_arg":
            spans = self._macro_spans.get(node.start_byte)
            if spans is None:
                spans = literal_and_comment_spans(node.text or b"")
                self._macro_spans[node.start_byte] = spans
            offset = node.start_byte
            if in_spans(spans, start - offset, end - offset):
                return None
            return node, True
        if (node.start_byte != start or node.end_byte != end) and node.type != "ERROR":
            return None  # part of a longer token (a number suffix, a string piece); ERROR nodes keep raw words
        return node, False

    def finding(
        self,
        rule: str,
        start: int,
        end: int,
        outcome: Outcome,
        symbol: str,
        fix: Fix | None = None,
        data: dict[str, str] | None = None,
    ) -> Finding:
        return Finding(
            rule=rule,
            start=start,
            end=end,
            difficulty=outcome.difficulty,
            message=outcome.message,
            symbol=symbol,
            replacement=outcome.replacement,
            fix=fix,
            data=data or {},
        )


class CFamilyAnalyzer:
    language = "c"

    def __init__(self, ruleset: RuleSet) -> None:
        self.ruleset = ruleset
        self.parser = Parser(CUDA_LANGUAGE)
        self._symbol_words = frozenset(name.encode() for name in ruleset.symbols)
        self._namespace_words = frozenset(name.encode() for name in ruleset.namespaces)
        prefix = ruleset.prefix_pattern
        self._prefix = re.compile(prefix.pattern.encode()) if prefix is not None else None
        self._calls: dict[tuple[str, str], CallRewrite] = load_call_rewrites(ruleset.tables.get("calls"))
        self._ptx = ptx.PtxTable.load(ruleset.tables.get("ptx"))
        self._markers = {name: re.compile(t.markers.pattern.encode()) for name, t in ruleset.targets.items()}

    # ---- parsing --------------------------------------------------------------------------------------------
    def parse(self, data: bytes, old_tree: Tree | None = None) -> Tree:
        if old_tree is not None:
            return self.parser.parse(data, old_tree)
        return self.parser.parse(data)

    # ---- analysis -------------------------------------------------------------------------------------------
    def analyze(
        self, data: bytes, tree: Tree, context: FileContext, ranges: list[tuple[int, int]] | None = None
    ) -> list[Finding]:
        scan = Scan(data, tree.root_node, context, self.ruleset, ranges)
        findings: list[Finding] = []
        findings.extend(self._names(scan))
        findings.extend(self._headers(scan))
        findings.extend(ptx.find_inline_asm(scan, self._ptx))
        findings.extend(warp.find_warp_assumptions(scan))
        if findings:
            self._mark_already_ported(scan, findings)
        findings.sort(key=Finding.sort_key)
        return findings

    # ---- names: symbols and namespaces ----------------------------------------------------------------------
    def _names(self, scan: Scan) -> Iterator[Finding]:
        words: set[bytes] = set()
        for lo, hi in scan.windows:
            words.update(_WORD.findall(scan.data, lo, hi))
        symbol_words = words & self._symbol_words
        namespace_words = words & self._namespace_words
        if self._prefix is not None:
            symbol_words |= {w for w in words if self._prefix.match(w) and w not in self._symbol_words}
        wanted = symbol_words | namespace_words
        if not wanted:
            return
        alternatives = b"|".join(re.escape(w) for w in sorted(wanted, key=len, reverse=True))
        pattern = re.compile(rb"(?<![\w$])(?:" + alternatives + rb")(?![\w$])")
        hits: list[tuple[int, int, str, Node, bool]] = []
        user_defined: set[str] = set()
        for lo, hi in scan.windows:
            for match in pattern.finditer(scan.data, lo, hi):
                start, end = match.span()
                if not scan.wanted(start):
                    continue
                found = scan.code_node(start, end)
                if found is None:
                    continue
                node, in_macro = found
                if node.type == "field_identifier":
                    continue
                name = match.group(0).decode()
                if _declares_function(node, in_macro):
                    user_defined.add(name)  # the user's own function of that name: none of its uses are CUDA's
                    continue
                hits.append((start, end, name, node, in_macro))
        if scan.ranges is not None and hits:
            user_defined |= _declared_elsewhere(scan, {name for _, _, name, _, _ in hits} - user_defined)
        for start, end, name, node, in_macro in hits:
            if name in user_defined:
                continue
            finding: Finding | None
            if name.encode() in namespace_words and self._is_namespace_use(node, in_macro):
                finding = self._namespace_finding(scan, start, end, name)
            else:
                finding = self._symbol_finding(scan, start, end, name, node, in_macro)
            if finding is not None:
                yield finding

    @staticmethod
    def _is_namespace_use(node: Node, in_macro: bool) -> bool:
        if in_macro:
            return False
        if node.type == "namespace_identifier":
            return True
        parent = node.parent
        return node.type == "identifier" and parent is not None and parent.type == "using_declaration"

    def _namespace_finding(self, scan: Scan, start: int, end: int, name: str) -> Finding:
        symbol = self.ruleset.namespaces[name]
        outcome = self.ruleset.outcome(symbol, scan.context.target)
        return scan.finding(
            symbol.rule,
            start,
            end,
            outcome,
            name,
            self._rename_fix(name, outcome, start, end),
            {"library": symbol.library, "kind": "namespace"},
        )

    def _symbol_finding(
        self, scan: Scan, start: int, end: int, name: str, node: Node, in_macro: bool
    ) -> Finding | None:
        symbol = self.ruleset.symbol(name)
        if symbol is None or symbol.quiet:
            return None
        if symbol.generic and not self._generic_counts(symbol, node, in_macro):
            return None
        if node.type not in _NAME_NODES and node.type not in ("preproc_arg", "ERROR"):
            return None
        target = scan.context.target
        outcome = self.ruleset.outcome(symbol, target)
        fix = None
        call = self._calls.get((symbol.name, target))
        if call is not None and not in_macro:
            fix = self._call_fix(scan, node, call, outcome)
            if fix is not None and outcome.replacement is None:
                outcome = Outcome(outcome.difficulty, call.callee, outcome.message, outcome.rewrite)
        if fix is None:
            fix = self._rename_fix(name, outcome, start, end)
        return scan.finding(
            symbol.rule, start, end, outcome, name, fix, {"library": symbol.library, "kind": symbol.kind}
        )

    @staticmethod
    def _generic_counts(symbol: Symbol, node: Node, in_macro: bool) -> bool:
        if in_macro:
            return False
        if symbol.kind in _CALLABLE_KINDS:
            return is_called(node) and in_device_code(node)
        return node.type == "type_identifier"

    @staticmethod
    def _rename_fix(name: str, outcome: Outcome, start: int, end: int) -> Fix | None:
        if not outcome.rewrite or not outcome.replacement:
            return None
        safe = outcome.difficulty <= Difficulty.MECHANICAL
        return Fix(
            title=f"Replace `{name}` with `{outcome.replacement}`",
            edits=(Edit(start, end, outcome.replacement),),
            applicability=Applicability.SAFE if safe else Applicability.UNSAFE,
        )

    @staticmethod
    def _call_fix(scan: Scan, node: Node, call: CallRewrite, outcome: Outcome) -> Fix | None:
        if not is_called(node):
            return None
        expression = node.parent
        while expression is not None and expression.type != "call_expression":
            expression = expression.parent
        if expression is None:
            return None
        arguments = expression.child_by_field_name("arguments")
        if arguments is None or arguments.has_error:
            return None
        args = [scan.data[a.start_byte : a.end_byte].decode() for a in arguments.named_children if a.type != "comment"]
        rendered = call.render(args)
        if rendered is None:
            return None
        note = f" ({call.note})" if call.note else ""
        return Fix(
            title=f"Rewrite as `{rendered}`{note}",
            edits=(Edit(expression.start_byte, expression.end_byte, rendered),),
            applicability=call.applicability,
        )

    # ---- headers --------------------------------------------------------------------------------------------
    def _headers(self, scan: Scan) -> Iterator[Finding]:
        if b"include" not in scan.data:
            return
        target = scan.context.target
        for match in (m for lo, hi in scan.windows for m in _INCLUDE.finditer(scan.data, lo, hi)):
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
            symbol = _concrete_header(symbol, path, target)
            outcome = self.ruleset.outcome(symbol, target)
            yield scan.finding(
                symbol.rule,
                start,
                end,
                outcome,
                path,
                self._rename_fix(path, outcome, start, end),
                {"library": symbol.library, "kind": "header"},
            )

    # ---- code already written for the target ----------------------------------------------------------------
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
                markers = self._markers.get(target.name)
                if markers is not None and markers.search(scan.data):
                    guards = guarded_regions(scan.data, markers, _comment_test(scan.root))
                local_shims = shim_definitions(scan.data, self.ruleset.symbols, target.shim_prefixes)
            region = guards.find(finding.start) if guards else None
            if region is not None:
                _downgrade(
                    finding,
                    f"already dual-stack: the {target.label} path is chosen by `{region.marker}` (line {region.line})",
                )
                continue
            mapped = local_shims.get(finding.symbol)
            if mapped is not None:
                _downgrade(finding, f"already mapped to `{mapped}` by a #define in this file")
                continue
            shim = scan.context.shims.get(finding.symbol)
            if shim is not None:
                _downgrade(finding, f"already mapped to `{shim.replacement}` by {shim.header}")


def _downgrade(finding: Finding, why: str) -> None:
    finding.difficulty = Difficulty.PORTABLE
    finding.fix = None
    finding.replacement = None
    finding.message = f"{finding.message} — {why}"
    finding.data["ported"] = "1"


def _comment_test(root: Node) -> Callable[[int], bool]:
    """Comments can hide directives (`/* #endif */`): asks the tree about each directive's position, which is
    far cheaper than listing every comment of a large file."""

    def in_comment(offset: int) -> bool:
        node = root.descendant_for_byte_range(offset, offset + 1)
        return node is not None and node.type == "comment" and node.start_byte <= offset

    return in_comment


def _declares_function(node: Node, in_macro: bool) -> bool:
    parent = node.parent
    return not in_macro and parent is not None and parent.type == "function_declarator"


def _declared_elsewhere(scan: Scan, names: set[str]) -> set[str]:
    """Names among `names` that the user declares as functions outside the scanned windows (a ranged scan must
    still know that `cudaMalloc` is the user's own function when its definition lies elsewhere in the file)."""
    declared: set[str] = set()
    data = scan.data
    for name in names:
        word = name.encode()
        position = data.find(word)
        while position != -1 and name not in declared:
            end = position + len(word)
            if (
                not _inside(scan.windows, position)
                and not _is_word_byte(data, position - 1)
                and not _is_word_byte(data, end)
            ):
                found = scan.code_node(position, end)
                if found is not None and _declares_function(*found):
                    declared.add(name)
            position = data.find(word, end)
    return declared


def _inside(windows: list[tuple[int, int]], offset: int) -> bool:
    return any(lo <= offset < hi for lo, hi in windows)


def _is_word_byte(data: bytes, index: int) -> bool:
    if index < 0 or index >= len(data):
        return False
    byte = data[index]
    return byte in (0x24, 0x5F) or 0x30 <= byte <= 0x39 or 0x41 <= byte <= 0x5A or 0x61 <= byte <= 0x7A


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
