"""Python sources: PyTorch's CUDA API (however it is imported), device strings in device positions, the "nccl"
backend, CUDA environment variables, CUDA extensions and CUDA-only libraries (`rules/python.toml`).

Like the C analyzer, it does not walk the tree: the buffer's words are matched against what can matter (words
spelling cuda/nccl/nvtx/cudnn that the rule data knows, the names it knows, the local names of relevant imports),
and only the places where those words stand are looked up in the tree. Fixes edit the exact identifier or string
content, so the file keeps parsing, and every npu/mlu fix carries the same `import torch_npu`/`import torch_mlu`
insertion, which the engine applies once.

A ranged analysis (the language server after an edit) scans only the statements around the requested ranges
(`pywindows`), with the file's imports (cheap to find, and read once per distinct statement); the two facts that
depend on uses elsewhere in the file (a library reported at its first use; an alias import kept because some use
cannot follow its rewrite) are looked up at the few places outside the windows where those names stand.

The analyzer composes the passes, each in its own module: the words worth a look (vocabulary), import statements
(importfindings), API and library uses (apis), methods (methods), strings and extension calls (literals), the
look-ups outside a ranged analysis's windows (outsidewindows), all building findings one way (findingbuilder) on
one per-file state (filestate); then the findings are reviewed in their surroundings (ported).
"""

from __future__ import annotations

import re
from pathlib import Path

from tree_sitter import Node, Parser, Tree

from ...i18n import t
from ...knowledge.python import PythonKnowledge, load_python_knowledge
from ...knowledge.ruleset import RuleSet
from ...model.findings import Finding
from ..common.base import FileContext, IncrementalProfile
from ..common.syntax import reparse, text
from . import buildargs
from . import windows as pywindows
from .apis import ApiFindings
from .chains import chain_through, enclosing_call
from .dualstack import DualTable, add_dual_fixes
from .filestate import FileState
from .findingbuilder import FindingBuilder
from .importfindings import ImportFindings, hold_shared_imports
from .imports import PYTHON_LANGUAGE, Imports, word_starts
from .literals import LiteralFindings
from .methods import MethodFindings
from .names import PythonNames
from .operators import OperatorFindings
from .outsidewindows import OutsideWindows
from .ported import Reviewer
from .portedknowledge import load_ported_knowledge
from .vocabulary import Vocabulary

_SOURCE_FILE = re.compile(rb"\.cuh?(?=[\"'])")
_IMPORT_PARENTS = frozenset({"import_statement", "import_from_statement", "aliased_import", "dotted_name"})
_DEFINITIONS = frozenset({"function_definition", "class_definition"})


# What an edit can change, for the engine's analysis session (cudaport.session).
INCREMENTAL = IncrementalProfile(
    file_wide=re.compile(rb"\bimport\b|\b__all__\b|cudaport:"),
    context_lines=None,
    scopes=frozenset({"function_definition", "decorated_definition"}),
    containers=frozenset({"module", "block", "class_definition"}),
)


class PythonAnalyzer:
    incremental = INCREMENTAL
    language = "python"

    def __init__(self, ruleset: RuleSet) -> None:
        self.ruleset = ruleset
        self.parser = Parser(PYTHON_LANGUAGE)
        self.names = PythonNames()  # what a fix's names mean to the file (cudaport.consistency)
        self.know: PythonKnowledge = load_python_knowledge(ruleset)
        self.ported = load_ported_knowledge(ruleset.tables.get("python") or {}, self.know.device.tables)
        self._dual = DualTable.load(ruleset.tables.get("python") or {})
        self._operators = OperatorFindings(ruleset)
        self._vocabulary = Vocabulary(self.know, self._operators.words)
        builder = FindingBuilder(ruleset, self.know)
        self._outside = OutsideWindows(self._hit)
        self._import_findings = ImportFindings(ruleset, self.know, self._vocabulary, builder)
        self._api_findings = ApiFindings(self.know, builder, self._outside.library_used_before)
        self._method_findings = MethodFindings(self.know, builder)
        self._literal_findings = LiteralFindings(self.know, builder)

    # ---- parsing --------------------------------------------------------------------------------------------
    def parse(self, data: bytes, old_tree: Tree | None = None) -> Tree:
        return reparse(self.parser, data, old_tree)

    # ---- analysis -------------------------------------------------------------------------------------------
    def analyze(
        self, data: bytes, tree: Tree, context: FileContext, ranges: list[tuple[int, int]] | None = None
    ) -> list[Finding]:
        root = tree.root_node
        windows = None if ranges is None else pywindows.search_windows(root, ranges)
        scanned = [(0, len(data))] if windows is None else windows
        words = self._vocabulary.candidates(data, context.target, scanned)
        sources = any(data.find(b".cu", lo, hi) >= 0 for lo, hi in scanned)
        file = FileState(data, root, context, Imports(data, root), windows)
        self._import_findings.find(file)
        words |= self._vocabulary.alias_words(file.imports, file.target)
        hits = [(start, word) for word in words for start in word_starts(data, word, scanned)]
        if sources:
            hits.extend((m.start(), m.group(0)) for lo, hi in scanned for m in _SOURCE_FILE.finditer(data, lo, hi))
        for start, word in sorted(hits):
            self._hit(file, start, start + len(word), word)
        if windows is not None:
            self._outside.alias_uses_elsewhere(file)
        # flags and requirements of build keywords: a whole-module reading (a flag list is built across the file)
        file.findings.extend(buildargs.build_findings(data, root, context, self.ruleset, self.know))
        platform = t(self.ruleset.targets[context.target].label) if context.target in self.ruleset.targets else ""
        where = Path(context.path) if context.path else None
        Reviewer(self.ported, data, root, context.target, platform or context.target, where).review(file.findings)
        hold_shared_imports(file)
        if file.findings and context.dual is not None and not _is_helper(context):
            comment = context.flags_unused_imports()
            facts = self.know.targets.get(context.target)
            add_dual_fixes(file.findings, data, root, file.imports, context.dual, facts, self._dual, comment)
        findings = file.findings
        if ranges is not None:
            findings = [f for f in findings if any(lo <= f.start < hi for lo, hi in ranges)]
        findings.sort(key=Finding.sort_key)
        return findings

    # ---- one hit ----------------------------------------------------------------------------------------------
    def _hit(self, file: FileState, start: int, end: int, word: bytes) -> None:
        """Look at one candidate word where it stands, and hand it to the pass its place calls for."""
        node = file.root.descendant_for_byte_range(start, end)
        if node is None:
            return
        if word.startswith(b"."):
            if node.type == "string_content":
                self._literal_findings.source_file(file, node)
            return
        if node.type == "string_content":
            string = node.parent
            if string is not None and string.type == "string":
                self._literal_findings.string(file, string)
            return
        if node.type != "identifier" or node.start_byte != start or node.end_byte != end:
            return
        parent = node.parent
        if parent is None or parent.type in _IMPORT_PARENTS:
            return  # imports have their own pass
        if parent.type == "keyword_argument" and parent.child_by_field_name("name") == node:
            if text(node) == "cuda_sources":
                call = enclosing_call(parent)
                if call is not None:
                    self._literal_findings.extension_call(file, call)
            return
        if parent.type in _DEFINITIONS and parent.child_by_field_name("name") == node:
            return
        if word in self._operators.words(file.target):
            self._operators.identifier(file, node)
        self._identifier(file, node)

    def _identifier(self, file: FileState, node: Node) -> None:
        links = chain_through(node)
        if links is not None and self._api_findings.options(file, links):
            return
        if links is not None and self._api_findings.api(file, links):
            return
        parent = node.parent
        if parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == node:
            self._method_findings.method(file, node, parent)


def _is_helper(context: FileContext) -> bool:
    """The file is the generated device helper module (it names every device on purpose)."""
    plan = context.dual
    return plan is not None and bool(plan.helper) and Path(context.path).stem == plan.helper.lstrip(".")
