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
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from tree_sitter import Node, Parser, Tree

from ...i18n import t
from ...knowledge.python import (
    UNSUPPORTED_RULE,
    ApiEntry,
    CommandEntry,
    EnvEntry,
    PythonKnowledge,
    TargetFacts,
    load_python_knowledge,
)
from ...knowledge.ruleset import RuleSet, Symbol, TargetMapping
from ...model.findings import Applicability, Difficulty, Edit, Finding, FindingData, Fix
from ..common.base import FileContext, IncrementalProfile
from ..common.names import Affected, Role
from ..common.syntax import reparse, text
from . import buildargs, strings
from . import windows as pywindows
from .dualstack import DualTable, add_dual_fixes
from .imports import (
    IDENTIFIER_BYTES,
    PYTHON_LANGUAGE,
    ImportedName,
    Imports,
    ImportStatement,
    StatementFacts,
    spelled,
    word_starts,
)
from .names import PythonNames
from .ported import Reviewer, load_ported_knowledge

_WORD = re.compile(rb"[A-Za-z_]\w*")
_MARKER = re.compile(rb"cuda|nccl|nvtx|cudnn")  # in lower-cased text: words spelling one may be CUDA names
_SOURCE_FILE = re.compile(rb"\.cuh?(?=[\"'])")
_IMPORT_PARENTS = frozenset({"import_statement", "import_from_statement", "aliased_import", "dotted_name"})
_DEFINITIONS = frozenset({"function_definition", "class_definition"})
_EXTENSION_RULE = "CP7040"


@dataclass(frozen=True, slots=True)
class Link:
    """One component of a dotted chain as written: its name, its identifier, and the node of the chain so far."""

    name: str
    identifier: Node
    prefix: Node


@dataclass(frozen=True, slots=True)
class AliasRewrite:
    """How an import that binds a module alias is rewritten, and what the alias then stands for."""

    edits: tuple[Edit, ...]
    qualified: tuple[str, ...]


class _Span(Protocol):
    """Where a finding is: a node, or a place an import statement spells a name."""

    @property
    def start_byte(self) -> int: ...

    @property
    def end_byte(self) -> int: ...


@dataclass(frozen=True, slots=True)
class _Written:
    start_byte: int
    end_byte: int


@dataclass(frozen=True, slots=True)
class _StatementNotes:
    mentions_known: bool  # imports something the rule data knows
    alias_words: frozenset[bytes]  # local names it binds that lead to known APIs


_NOTES_LIMIT = 8192


@dataclass
class _File:
    """Per-buffer state: the imports, the target's facts, what was reported already."""

    data: bytes
    root: Node
    context: FileContext
    imports: Imports
    # A ranged analysis scans only these (statements around the requested ranges); None: the whole buffer.
    windows: list[tuple[int, int]] | None = None
    findings: list[Finding] = field(default_factory=list)
    seen: set[tuple[int, int]] = field(default_factory=set)
    reported_imports: set[str] = field(default_factory=set)  # library entries reported at an import
    alias_edits: dict[str, AliasRewrite] = field(default_factory=dict)  # local name -> how its import changes
    alias_uses: dict[str, list[Finding]] = field(default_factory=dict)  # local name -> findings of its uses
    insertion: Edit | None = None
    insertion_known: bool = False
    own_attributes: dict[str, int] = field(default_factory=dict)  # name -> where the file defines it (-1: nowhere)

    @property
    def target(self) -> str:
        return self.context.target

    def add(self, finding: Finding) -> None:
        key = (finding.start, finding.end)
        if key not in self.seen:
            self.seen.add(key)
            self.findings.append(finding)


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
        self._vocabularies: dict[str, tuple[frozenset[bytes], frozenset[str]]] = {}
        self._prefix_cache: frozenset[str] | None = None
        self._statement_notes: dict[tuple[StatementFacts, str], _StatementNotes] = {}
        self._dual = DualTable.load(ruleset.tables.get("python") or {})

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
        words = self._candidates(data, context.target, scanned)
        sources = any(data.find(b".cu", lo, hi) >= 0 for lo, hi in scanned)
        file = _File(data, root, context, Imports(data, root), windows)
        self._import_findings(file)
        words |= self._alias_words(file)
        hits = [(start, word) for word in words for start in word_starts(data, word, scanned)]
        if sources:
            hits.extend((m.start(), m.group(0)) for lo, hi in scanned for m in _SOURCE_FILE.finditer(data, lo, hi))
        for start, word in sorted(hits):
            self._hit(file, start, start + len(word), word)
        if windows is not None:
            self._uses_elsewhere(file)
        # flags and requirements of build keywords: a whole-module reading (a flag list is built across the file)
        file.findings.extend(buildargs.build_findings(data, root, context, self.ruleset, self.know))
        platform = t(self.ruleset.targets[context.target].label) if context.target in self.ruleset.targets else ""
        where = Path(context.path) if context.path else None
        Reviewer(self.ported, data, root, context.target, platform or context.target, where).review(file.findings)
        _hold_shared_imports(file)
        if file.findings and context.dual is not None and not _is_helper(context):
            comment = context.flags_unused_imports()
            facts = self.know.targets.get(context.target)
            add_dual_fixes(file.findings, data, root, file.imports, context.dual, facts, self._dual, comment)
        findings = file.findings
        if ranges is not None:
            findings = [f for f in findings if any(lo <= f.start < hi for lo, hi in ranges)]
        findings.sort(key=Finding.sort_key)
        return findings

    def _candidates(self, data: bytes, target: str, windows: list[tuple[int, int]]) -> set[bytes]:
        """The words of the scanned windows the tree must be asked about: names the rule data knows, and words that
        spell cuda/nccl/nvtx/cudnn and mean something (`cuda`, `is_cuda`, `CUDA_VISIBLE_DEVICES`; not `use_cuda`).
        Windows start and end between words."""
        static, interesting = self._vocabulary(target)
        words: set[bytes] = set()
        found: set[bytes] = set()
        seen: set[bytes] = set()
        for lo, hi in windows:
            words.update(_WORD.findall(data, lo, hi))
            for match in _MARKER.finditer(data[lo:hi].lower() if hi - lo < len(data) else data.lower()):
                start, end = match.start() + lo, match.end() + lo
                while start > lo and data[start - 1] in IDENTIFIER_BYTES:
                    start -= 1
                while end < hi and data[end] in IDENTIFIER_BYTES:
                    end += 1
                word = data[start:end]
                if word in seen or word[:1].isdigit():
                    continue
                seen.add(word)
                if self._worth(word, interesting):
                    found.add(word)
        return (words & static) | found

    def _vocabulary(self, target: str) -> tuple[frozenset[bytes], frozenset[str]]:
        cached = self._vocabularies.get(target)
        if cached is None:
            words = set(self.know.words)
            if target in self.know.unsupported_targets:
                words |= self.know.unsupported_words
            interesting = set(words) | {"cuda_sources"} | self.know.device_types | self.know.backend_names
            for name in [*self.know.exact, *self.know.wildcards]:
                interesting.update(name.split("."))
            cached = (frozenset(w.encode() for w in words), frozenset(interesting))
            self._vocabularies[target] = cached
        return cached

    def _worth(self, word: bytes, interesting: frozenset[str]) -> bool:
        name = word.decode("ascii", "replace")
        return name in interesting or self.know.env(name) is not None or _is_backend_spec(name)

    def _alias_words(self, file: _File) -> set[bytes]:
        """Local names of imports that lead to known APIs (`tc` for torch.cuda, `cp` for cupy): their uses do not
        spell cuda."""
        words: set[bytes] = set()
        for statement in file.imports.statements:
            words |= self._notes(statement.facts, file.target).alias_words
        return words

    def _notes(self, facts: StatementFacts, target: str) -> _StatementNotes:
        """What the rule data makes of an import statement, worked out once per distinct statement and target."""
        key = (facts, target)
        notes = self._statement_notes.get(key)
        if notes is None:
            if len(self._statement_notes) >= _NOTES_LIMIT:
                self._statement_notes.clear()
            notes = self._statement_notes[key] = _StatementNotes(
                self._mentions_known(facts), self._statement_alias_words(facts, target)
            )
        return notes

    def _mentions_known(self, facts: StatementFacts) -> bool:
        """Whether the statement imports anything the rule data knows (else it has no findings of its own)."""
        if facts.module is not None and self.know.match(facts.module) is not None:
            return True
        paths = (name.qualified if facts.module is not None else spelled(name) for name in facts.names)
        return any(self.know.match(path) is not None for path in paths)

    def _statement_alias_words(self, facts: StatementFacts, target: str) -> frozenset[bytes]:
        words: set[bytes] = set()
        static, _ = self._vocabulary(target)
        prefixes = self._prefixes
        for imported in facts.names:
            local = imported.local.encode()
            if imported.qualified == ["torch"] or local in static:
                continue  # `torch` itself is too common; known words are found anyway
            joined = ".".join(imported.qualified)
            if joined in prefixes or self.know.match(imported.qualified) is not None:
                words.add(local)
            elif target in self.know.unsupported_targets and joined in self.know.unsupported_owners:
                words.add(local)  # `FSDP.summon_full_params(...)` after `import ... FullyShardedDataParallel as FSDP`
        return frozenset(words)

    @property
    def _prefixes(self) -> frozenset[str]:
        """Every proper prefix of a known API's name (`torch.distributed` for `torch.distributed.is_nccl_available`)."""
        if self._prefix_cache is None:
            out: set[str] = set()
            for name in [*self.know.exact, *self.know.wildcards]:
                parts = name.split(".")
                out.update(".".join(parts[:i]) for i in range(1, len(parts)))
            self._prefix_cache = frozenset(out)
        return self._prefix_cache

    # ---- one hit ----------------------------------------------------------------------------------------------
    def _hit(self, file: _File, start: int, end: int, word: bytes) -> None:
        node = file.root.descendant_for_byte_range(start, end)
        if node is None:
            return
        if word.startswith(b"."):
            if node.type == "string_content":
                self._source_file(file, node)
            return
        if node.type == "string_content":
            string = node.parent
            if string is not None and string.type == "string":
                self._string(file, string)
            return
        if node.type != "identifier" or node.start_byte != start or node.end_byte != end:
            return
        parent = node.parent
        if parent is None or parent.type in _IMPORT_PARENTS:
            return  # imports have their own pass
        if parent.type == "keyword_argument" and parent.child_by_field_name("name") == node:
            if text(node) == "cuda_sources":
                call = _enclosing_call(parent)
                if call is not None:
                    self._extension_call(file, call)
            return
        if parent.type in _DEFINITIONS and parent.child_by_field_name("name") == node:
            return
        self._identifier(file, node)

    def _identifier(self, file: _File, node: Node) -> None:
        links = _chain(node)
        if links is not None and self._options(file, links):
            return
        if links is not None and self._api(file, links):
            return
        parent = node.parent
        if parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == node:
            self._method(file, node, parent)

    def _options(self, file: _File, links: list[Link]) -> bool:
        """Device-specific option values of a call (`torch.compile(m, mode="reduce-overhead")`)."""
        if links[-1].name not in self.know.option_words:
            return False
        qualified = file.imports.resolve([link.name for link in links])
        name = ".".join(qualified) if qualified is not None else ""
        if name not in self.know.option_calls:
            return False
        call = links[-1].prefix.parent
        arguments = call.child_by_field_name("arguments") if call is not None and call.type == "call" else None
        for argument in arguments.named_children if arguments is not None else []:
            keyword = argument.child_by_field_name("name") if argument.type == "keyword_argument" else None
            value = argument.child_by_field_name("value") if keyword is not None else None
            if keyword is None or value is None or value.type != "string":
                continue
            written = strings.literal(file.data, value)
            entry = self.know.options.get((name, text(keyword), written.content)) if written is not None else None
            if entry is None:
                continue
            label = f'`{entry.keyword}="{entry.value}"` of `{entry.call}`'
            targets = {
                t: TargetMapping(label if c.replacement == "=" else "", c.difficulty, c.note)
                for t, c in entry.counterparts.items()
            }
            symbol = Symbol(label, "option", entry.rule, "torch", targets)
            file.add(self._finding(file, symbol, value, None, {"kind": "option"}, needs_module=False))
        return False  # the call itself may still be a finding

    # ---- PyTorch APIs and libraries, at their uses -------------------------------------------------------------
    def _api(self, file: _File, links: list[Link]) -> bool:
        """A finding for a chain that resolves to a known API; True when the chain was one (even if not reported)."""
        parts = [link.name for link in links]
        qualified = file.imports.resolve(parts)
        if qualified is None:
            return False
        base = len(qualified) - len(parts) + 1  # qualified components the base identifier stands for
        match = self.know.match(qualified)
        if match is not None:
            entry, size = match
            if self._api_use(file, links, qualified, base, entry, size):
                return True
        if file.target in self.know.unsupported_targets:
            size = self.know.is_unsupported(qualified)
            if size >= base:
                link = links[size - base]
                if _is_called(link.prefix):
                    file.add(self._unsupported(".".join(qualified[:size]), link.prefix, file.target))
                return True
        return match is not None

    def _api_use(
        self, file: _File, links: list[Link], qualified: list[str], base: int, entry: ApiEntry, size: int
    ) -> bool:
        """Report a use of `entry` (it covers `size` qualified components; the chain's base stands for `base`)."""
        if entry.report == "import" and _decorates(links[-1].prefix):
            # `@cuda.jit`, `@triton.jit`: every kernel the library compiles is a finding of its own
            symbol = entry.symbol(".".join(qualified[: max(size, 1)]), file.target)
            file.add(self._finding(file, symbol, links[-1].prefix, None, {"kind": "api"}))
            file.reported_imports.add(entry.name)  # the library is reported: its other uses are not
            return True
        if size < base or (size == base and entry.report != "use"):
            return True  # the chain only repeats what its import says, and the import is reported
        if entry.report == "import":
            if entry.name in file.reported_imports or self._used_before(file, entry, links[0].identifier.start_byte):
                file.reported_imports.add(entry.name)
                return True  # a library is one finding per file, at its import (or its first use)
            file.reported_imports.add(entry.name)
        node = links[size - base].prefix
        if entry.when == "cuda-sources":
            call = node.parent
            if call is None or call.type != "call" or call.child_by_field_name("function") != node:
                return False
            if not strings.passes_cuda_sources(call):
                return False
        name = ".".join(qualified[:size])
        symbol = entry.symbol(name, file.target)
        edits = self._use_edits(file, links, qualified, base, entry, size)
        finding = self._finding(file, symbol, node, edits, {"kind": "api"})
        file.add(finding)
        if base > 1:
            file.alias_uses.setdefault(links[0].name, []).append(finding)
        return True

    # ---- what a ranged analysis must look up outside its windows -------------------------------------------------
    def _probe(self, file: _File) -> _File:
        """A whole-file view of `file` for looking at single places outside the windows: the same imports and
        import findings' facts, its own findings."""
        probe = _File(file.data, file.root, file.context, file.imports)
        probe.reported_imports = set(file.reported_imports)
        probe.alias_edits = file.alias_edits
        probe.insertion, probe.insertion_known = file.insertion, file.insertion_known
        return probe

    def _used_before(self, file: _File, entry: ApiEntry, before: int) -> bool:
        """For a ranged analysis: whether a use of library `entry` before `before`, outside the windows, took the
        one finding a library gets (the hits before it inside the windows were analysed already)."""
        if file.windows is None:
            return False
        parts = entry.name.split(".")
        bases = [
            local for local, bound in file.imports.bindings.items() if parts[: len(bound.qualified)] == bound.qualified
        ]
        if parts[0] in ("torch", "os") and parts[0] not in file.imports.bindings:
            bases.append(parts[0])
        probe = self._probe(file)
        outside = _outside(file.windows, 0, before)
        hits = sorted((start, local) for local in bases for start in word_starts(file.data, local.encode(), outside))
        for start, local in hits:
            self._hit(probe, start, start + len(local.encode()), local.encode())
            if entry.name in probe.reported_imports:
                return True
        return False

    def _uses_elsewhere(self, file: _File) -> None:
        """For a ranged analysis: the uses outside the windows of each alias whose import a fix in the windows
        rewrites (whether all its uses can follow decides whether the import may be rewritten)."""
        assert file.windows is not None
        probe: _File | None = None
        for local, rewrite in file.alias_edits.items():
            held = set(rewrite.edits)
            carried = any(f.fix is not None and f.fix.is_safe and held.intersection(f.fix.edits) for f in file.findings)
            if not carried:
                continue
            probe = probe or self._probe(file)
            word = local.encode()
            for start in word_starts(file.data, word, _outside(file.windows, 0, len(file.data))):
                self._hit(probe, start, start + len(word), word)
            file.alias_uses.setdefault(local, []).extend(probe.alias_uses.pop(local, []))

    def _use_edits(
        self, file: _File, links: list[Link], qualified: list[str], base: int, entry: ApiEntry, size: int
    ) -> list[Edit] | None:
        name = ".".join(qualified[:size])
        rendered = entry.render(name, file.target)
        if rendered is None or rendered == name:
            return None
        old = qualified[:size]
        new = rendered.split(".")
        alias_prefix = qualified[:base]
        edits: list[Edit] = []
        if len(new) == size and new[:base] == alias_prefix:
            for index in range(base, size):
                if new[index] != old[index]:
                    identifier = links[index - base + 1].identifier
                    edits.append(Edit(identifier.start_byte, identifier.end_byte, new[index]))
            return edits
        alias = file.alias_edits.get(links[0].name) if base > 1 else None
        if len(new) == size and alias is not None and list(alias.qualified) == new[:base]:
            # the alias's import is rewritten (`import torch.cuda as tc` -> `import torch.npu as tc`)
            edits.extend(alias.edits)
            for index in range(base, size):
                if new[index] != old[index]:
                    identifier = links[index - base + 1].identifier
                    edits.append(Edit(identifier.start_byte, identifier.end_byte, new[index]))
            return edits
        # another module path: the chain is written anew from a name this file binds to the new root
        root = links[0].name if base == 1 and new[0] == qualified[0] else self._root_name(file, new[0])
        if root is None:
            return None
        node = links[size - base].prefix
        return [Edit(node.start_byte, node.end_byte, ".".join([root, *new[1:]]))]

    def _root_name(self, file: _File, root: str) -> str | None:
        """How this file can spell the top-level module `root`: a local name bound to it, or the target's package
        (which the fix imports)."""
        local = file.imports.local_name([root])
        if local is not None:
            return local
        facts = self.know.targets.get(file.target)
        if facts is not None and root == facts.module and self._insertion(file) is not None:
            return root
        return None

    # ---- imports ------------------------------------------------------------------------------------------------
    def _import_findings(self, file: _File) -> None:
        for statement in file.imports.statements:
            if not self._notes(statement.facts, file.target).mentions_known:
                continue
            if statement.is_from:
                self._from_statement(file, statement)
            else:
                self._import_statement(file, statement)

    def _import_statement(self, file: _File, statement: ImportStatement) -> None:
        for name in statement.names:
            path = spelled(name)
            match = self.know.match(path)
            if match is None:
                continue
            entry, size = match
            if entry.report == "use" or (entry.report == "import" and file.context.is_own_module(path[0])):
                continue  # a library's own code (flash-attn importing flash_attn) is not a dependency on it
            if entry.report == "import":
                file.reported_imports.add(entry.name)
            qualified = ".".join(path[:size])
            edits: list[Edit] | None = None
            rendered = entry.render(qualified, file.target)
            facts = self.know.targets.get(file.target)
            # `import torch.cuda.amp` binds `torch`: only aliased or two-part imports keep their binding when rewritten
            rewritable = size == len(path) and (name.alias or len(path) <= 2)
            start, end = statement.span(name)
            if rendered is not None and rendered != qualified and rewritable and facts is not None:
                edits = [Edit(start, end, facts.import_path(rendered))]
            symbol = entry.symbol(qualified, file.target)
            finding = self._finding(file, symbol, _Written(start, end), edits, {"kind": "import"})
            file.add(finding)
            if name.alias and edits and rendered is not None:
                file.alias_edits[name.local] = AliasRewrite(tuple(edits), tuple(rendered.split(".")))

    def _from_statement(self, file: _File, statement: ImportStatement) -> None:
        module = statement.facts.module
        if module is None:
            return
        module_start, module_end = statement.module_span()
        facts = self.know.targets.get(file.target)
        module_match = self.know.match(module)
        if module_match is not None and (statement.facts.wildcard or module_match[0].report == "import"):
            entry, size = module_match
            if entry.report == "use" or (entry.report == "import" and file.context.is_own_module(module[0])):
                return
            file.reported_imports.add(entry.name)
            qualified = ".".join(module[:size])
            rendered = entry.render(qualified, file.target)
            edits = None
            if rendered is not None and rendered != qualified and size == len(module) and facts is not None:
                edits = [Edit(module_start, module_end, facts.import_path(rendered))]
            module_symbol = entry.symbol(qualified, file.target)
            written = _Written(module_start, module_end)
            file.add(self._finding(file, module_symbol, written, edits, {"kind": "import"}))
            return
        # one finding per imported name; the statement is rewritten as a whole or not at all
        plans: list[tuple[ImportedName, Symbol | None, list[str]]] = []
        for name in statement.names:
            match = self.know.match(name.qualified)
            if match is None or match[1] < len(name.qualified) or match[0].report == "use":
                plans.append((name, None, name.qualified))
                continue
            entry, _ = match
            qualified = ".".join(name.qualified)
            rendered = entry.render(qualified, file.target)
            if entry.report == "import":
                file.reported_imports.add(entry.name)
            plans.append((name, entry.symbol(qualified, file.target), rendered.split(".") if rendered else []))
        reported = [(name, symbol, new) for name, symbol, new in plans if symbol is not None]
        if not reported:
            return
        outcomes = [self.ruleset.outcome(symbol, file.target) for _, symbol, _ in reported]
        edits = self._from_edits(module, statement, plans, facts)
        safe = all(outcome.difficulty <= Difficulty.MECHANICAL for outcome in outcomes)
        for name, reported_symbol, _ in reported:
            assert reported_symbol is not None
            written = _Written(*statement.span(name))
            finding = self._finding(file, reported_symbol, written, edits, {"kind": "import"}, force_unsafe=not safe)
            file.add(finding)
        if edits:
            for name, symbol, new in plans:
                if symbol is not None:
                    file.alias_edits[name.local] = AliasRewrite(tuple(edits), tuple(new))

    @staticmethod
    def _from_edits(
        module: list[str],
        statement: ImportStatement,
        plans: list[tuple[ImportedName, Symbol | None, list[str]]],
        facts: TargetFacts | None,
    ) -> list[Edit] | None:
        if any(not new for _, _, new in plans) or facts is None:
            return None
        modules = {tuple(new[:-1]) for _, _, new in plans}
        if len(modules) != 1:
            return None
        new_module = list(modules.pop())
        edits: list[Edit] = []
        if new_module != module:
            import_path = facts.import_path(".".join(new_module))
            edits.append(Edit(*statement.module_span(), import_path))
        for name, _, new in plans:
            member = new[-1]
            if member == name.qualified[-1]:
                continue
            replacement = member if name.alias else f"{member} as {name.written}"
            edits.append(Edit(*statement.span(name), replacement))
        return edits or None

    # ---- methods: x.cuda(), x.is_cuda, and npu-unsupported tensor methods ---------------------------------------
    def _method(self, file: _File, node: Node, attribute: Node) -> None:
        name = text(node)
        call = attribute.parent
        called = call is not None and call.type == "call" and call.child_by_field_name("function") == attribute
        method = self.know.methods.get(name)
        if method is not None and method.called == called:
            defined = _own_attribute(file, name)
            if defined is not None and _on_self(attribute):
                return  # the program's own attribute or method, on its own object: none of CUDA's
            counterpart = method.counterparts.get(file.target)
            if defined is not None and counterpart is not None and counterpart.replacement not in ("", "=", name):
                self._own_method(file, node, name, defined)
                return
            counterpart = method.counterparts.get(file.target)
            suffix = "()" if called else ""
            targets = {
                t: TargetMapping(
                    f".{c.replacement if c.replacement != '=' else name}{suffix}" if c.replacement else "",
                    c.difficulty,
                    c.note,
                )
                for t, c in method.counterparts.items()
            }
            symbol = Symbol(f".{name}{suffix}", "method", method.rule, "torch", targets)
            edits = None
            if counterpart is not None and counterpart.replacement and counterpart.replacement not in ("=", name):
                edits = [Edit(node.start_byte, node.end_byte, counterpart.replacement)]
            file.add(self._finding(file, symbol, node, edits, {"kind": "method"}))
            return
        if file.target in self.know.unsupported_targets and called and name in self.know.unsupported_methods:
            file.add(self._unsupported(f"Tensor.{name}", node, file.target))

    def _own_method(self, file: _File, node: Node, name: str, defined: int) -> None:
        """`.cuda()` on an object where the file defines an attribute or method of that name itself: it may be the
        program's or a tensor's, so a person tells (a rewrite would have to follow every read and write of the
        program's own)."""
        line = file.data.count(b"\n", 0, defined) + 1
        suffix = "()" if self.know.methods[name].called else ""
        symbol = Symbol(f".{name}{suffix}", "method", self.know.methods[name].rule, "torch", {})
        message = t(
            "`.{name}` is also a method or attribute this file defines (line {line}): if this one is a tensor's or "
            "a module's, change it by hand; a rewrite would rename the program's own too",
            name=name,
            line=line,
        )
        file.add(
            Finding(
                symbol.rule,
                node.start_byte,
                node.end_byte,
                Difficulty.MANUAL,
                message,
                symbol.name,
                data={"kind": "method"},
            )
        )

    def _unsupported(self, name: str, node: Node, target: str) -> Finding:
        advice = self.know.unsupported_advice.get(name) or self.know.unsupported_advice.get(f"torch.{name}", "")
        symbol = Symbol(name, "api", UNSUPPORTED_RULE, "torch", {}, note=advice)
        outcome = self.ruleset.outcome(symbol, target)
        return Finding(
            UNSUPPORTED_RULE,
            node.start_byte,
            node.end_byte,
            outcome.difficulty,
            outcome.message,
            name,
            data={"kind": "unsupported"},
        )

    # ---- strings: device types, backends, environment variables, CUDA sources -----------------------------------
    def _string(self, file: _File, string: Node) -> None:
        literal = strings.literal(file.data, string)
        if literal is None:
            return
        facts = self.know.targets.get(file.target)
        if self.know.commands:
            program = strings.command_program(file.data, string, self.know.command_calls, file.imports)
            command = self.know.commands.get(program) if program is not None else None
            if command is not None:
                self._command(file, string, command)
                return
        env = self.know.env(literal.content) if not literal.formatted else None
        if env is not None and strings.is_env_key(string, file.imports):
            self._env(file, string, literal, env)
            return
        if strings.DEVICE.match(literal.content) and literal.content.split(":")[0] in self.know.device_types:
            if strings.in_position(string, self.know.device, file.imports):
                new_type = facts.device if facts is not None else "cuda"
                old_type = literal.content.split(":")[0]
                edit = Edit(literal.content_start, literal.content_start + len(old_type), new_type)
                self._literal_finding(file, string, literal, edit, "CP7010", "device string")
            return
        backend_spec = _is_backend_spec(literal.content) and not literal.formatted
        if backend_spec and strings.in_position(string, self.know.backend, file.imports):
            backend = facts.backend if facts is not None else "nccl"
            device = facts.device if facts is not None else "cuda"
            new = strings.rewrite_backend_spec(literal.content, backend, device, self.know.device_types)
            edit = Edit(literal.content_start, literal.content_end, new)
            self._literal_finding(file, string, literal, edit, "CP7020", "backend")

    def _literal_finding(
        self, file: _File, string: Node, literal: strings.Literal, edit: Edit, rule: str, kind: str
    ) -> None:
        written = file.data[string.start_byte : string.end_byte].decode("utf-8", "replace")
        start = edit.start - string.start_byte
        end = edit.end - string.start_byte
        rewritten = written[:start] + edit.text + written[end:] if written.isascii() else None
        # PyTorch builds that keep the "cuda" device type and "nccl" run the string as it is.
        targets = {t: TargetMapping(written, None) for t, f in self.know.targets.items() if f.keeps_cuda}
        facts = self.know.targets.get(file.target)
        keeps = facts is None or facts.keeps_cuda
        if not keeps and rewritten is not None and rewritten != written:
            targets[file.target] = TargetMapping(rewritten, None)
        symbol = Symbol(written, kind, rule, "torch", targets)
        edits = [edit] if file.target in targets and not keeps else None
        file.add(self._finding(file, symbol, string, edits, {"kind": kind.replace(" ", "_")}))

    def _env(self, file: _File, string: Node, literal: strings.Literal, entry: EnvEntry) -> None:
        name = literal.content
        counterpart = entry.counterparts.get(file.target)
        replacement = entry.replacement(name, file.target)
        difficulty = counterpart.difficulty if counterpart is not None else None
        note = counterpart.note if counterpart is not None else ""
        check = entry.value_checks.get(file.target)
        if check == "ascending-ids":
            value = strings.assigned_value(file.data, string)
            if value is not None and not strings.ascending_ids(value):
                difficulty = Difficulty.MANUAL
                note = t("the value {value} does not parse as ascending ids: {note}", value=repr(value), note=t(note))
        targets = {file.target: TargetMapping(replacement or "", difficulty, note)}
        symbol = Symbol(name, "variable", entry.rule, "environment", targets)
        edits = None
        if replacement and replacement != name:
            edits = [Edit(literal.content_start, literal.content_end, replacement)]
        file.add(self._finding(file, symbol, string, edits, {"kind": "environment"}, needs_module=False))

    def _command(self, file: _File, string: Node, command: CommandEntry) -> None:
        file.add(self._finding(file, command.symbol(), string, None, {"kind": "command"}, needs_module=False))

    def _source_file(self, file: _File, content: Node) -> None:
        """A `.cu` file name: the extension call it is passed to builds CUDA code."""
        call = _enclosing_call(content)
        if call is not None:
            self._extension_call(file, call)

    def _extension_call(self, file: _File, call: Node) -> None:
        function = call.child_by_field_name("function")
        if function is None or (function.start_byte, function.end_byte) in file.seen:
            return
        links = _chain_of(function)
        if links is None:
            return
        parts = [link.name for link in links]
        qualified = file.imports.resolve(parts) or parts
        name = ".".join(qualified)
        match = self.know.match(qualified)
        if match is not None and match[0].rule == _EXTENSION_RULE and match[1] == len(qualified):
            entry = match[0]
            if entry.when == "cuda-sources" and not strings.passes_cuda_sources(call):
                return
            file.add(self._finding(file, entry.symbol(name, file.target), function, None, {"kind": "extension"}))
            return
        if not parts[-1].endswith("Extension") or not strings.passes_cuda_sources(call):
            return
        # Another extension class given CUDA sources: nothing hipifies them (only CUDAExtension is on ROCm).
        notes = {t: TargetMapping("", None, f.extension_note) for t, f in self.know.targets.items() if f.extension_note}
        symbol = Symbol(name, "extension", _EXTENSION_RULE, "torch", notes)
        file.add(self._finding(file, symbol, function, None, {"kind": "extension"}))

    # ---- findings and fixes --------------------------------------------------------------------------------------
    def _insertion(self, file: _File) -> Edit | None:
        if not file.insertion_known:
            facts = self.know.targets.get(file.target)
            if facts is not None and facts.module and not file.imports.imports_module(facts.module):
                comment = "  # noqa: F401" if file.context.flags_unused_imports() else ""
                file.insertion = file.imports.insertion(facts.module, comment)
            file.insertion_known = True
        return file.insertion

    def _finding(
        self,
        file: _File,
        symbol: Symbol,
        node: _Span,
        edits: list[Edit] | None,
        data: FindingData,
        force_unsafe: bool = False,
        needs_module: bool = True,
    ) -> Finding:
        outcome = self.ruleset.outcome(symbol, file.target)
        fix = None
        replacement = outcome.replacement
        difficulty, message = outcome.difficulty, outcome.message
        mapped = self.ruleset.mapping(symbol, file.target)
        renamed = mapped is not None and bool(mapped.replacement) and mapped.replacement != symbol.name
        if not edits and renamed and difficulty <= Difficulty.MECHANICAL:
            # the counterpart is certain, but this spelling cannot be rewritten safely (an import shared with
            # names that have none, a module alias used for other things): a person does it
            difficulty = Difficulty.MANUAL
            message = t(
                "{message}; this spelling cannot be rewritten automatically: change it by hand", message=message
            )
        elif edits and force_unsafe and difficulty <= Difficulty.MECHANICAL:
            difficulty = Difficulty.MANUAL
            message = t(
                "{message}; its import statement also brings names that need a person, so it is not rewritten "
                "automatically",
                message=message,
            )
        if edits:
            all_edits = list(edits)
            insertion = self._insertion(file) if needs_module else None
            if insertion is not None:
                all_edits.append(insertion)
            safe = difficulty <= Difficulty.MECHANICAL and not force_unsafe
            replacement = mapped.replacement if mapped is not None and mapped.replacement else replacement
            fix = Fix(
                title=(
                    t("Replace `{name}` with `{replacement}`", name=symbol.name, replacement=replacement)
                    if replacement
                    else t("Port `{name}`", name=symbol.name)
                ),
                edits=tuple(all_edits),
                applicability=Applicability.SAFE if safe else Applicability.UNSAFE,
            )
        return Finding(
            symbol.rule,
            node.start_byte,
            node.end_byte,
            difficulty,
            message,
            symbol.name,
            replacement if fix is not None else None,
            fix,
            data=data,
        )


_NAMES = PythonNames()


def _on_self(attribute: Node) -> bool:
    receiver = attribute.child_by_field_name("object")
    return receiver is not None and receiver.type == "identifier" and text(receiver) in ("self", "cls")


def _own_attribute(file: _File, name: str) -> int | None:
    """Where the file defines an attribute or method `name` itself (`self.name = ...`, `obj.name = ...`, a `def` or
    an assignment in a class body), worked out once per name and file; None: it only reads one."""
    known = file.own_attributes.get(name)
    if known is None:
        affected = Affected(frozenset({name}), frozenset())
        definitions = [
            o.start
            for o in _NAMES.occurrences(file.data, file.root, affected)
            if o.namespace in ("attr", "member") and o.role & Role.DEFINES
        ]
        known = file.own_attributes[name] = min(definitions) if definitions else -1
    return known if known >= 0 else None


def _hold_shared_imports(file: _File) -> None:
    """An alias whose import would be rewritten while some of its uses cannot follow (`tc.CUDAGraph()` on npu)
    keeps its import: rewriting it would hide those uses from the next check. Every fix that carries the import's
    edit becomes unsafe, and its finding manual."""
    for local, rewrite in file.alias_edits.items():
        uses = file.alias_uses.get(local, [])
        if all(use.fix is not None and use.fix.is_safe for use in uses):
            continue
        held = set(rewrite.edits)
        for finding in file.findings:
            fix = finding.fix
            if fix is None or not fix.is_safe or not held.intersection(fix.edits):
                continue
            finding.fix = Fix(fix.title, fix.edits, Applicability.UNSAFE)
            if finding.difficulty <= Difficulty.MECHANICAL:
                finding.difficulty = Difficulty.MANUAL
                finding.message = t(
                    "{message}; `{name}` is also used for APIs that need a person, so its import is kept",
                    message=finding.message,
                    name=local,
                )


def _is_helper(context: FileContext) -> bool:
    """The file is the generated device helper module (it names every device on purpose)."""
    plan = context.dual
    return plan is not None and bool(plan.helper) and Path(context.path).stem == plan.helper.lstrip(".")


def _outside(windows: list[tuple[int, int]], lo: int, hi: int) -> list[tuple[int, int]]:
    """The parts of [lo, hi) that no window covers (the windows are sorted and disjoint)."""
    out = []
    for start, end in windows:
        if start > lo:
            out.append((lo, min(start, hi)))
        lo = max(lo, end)
        if lo >= hi:
            break
    if lo < hi:
        out.append((lo, hi))
    return [(a, b) for a, b in out if a < b]


# ---- tree helpers ------------------------------------------------------------------------------------------------
def _chain(node: Node) -> list[Link] | None:
    """The longest dotted chain of identifiers through `node` (`torch.cuda.amp.autocast` from any of its names)."""
    top = node
    parent = top.parent
    if parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == top:
        top = parent
    while True:
        parent = top.parent
        if parent is None or parent.type != "attribute" or parent.child_by_field_name("object") != top:
            break
        top = parent
    return _chain_of(top)


def _chain_of(top: Node) -> list[Link] | None:
    links: list[Link] = []
    current: Node | None = top
    while current is not None and current.type == "attribute":
        attribute = current.child_by_field_name("attribute")
        if attribute is None:
            return None
        links.append(Link(text(attribute), attribute, current))
        current = current.child_by_field_name("object")
    if current is None or current.type != "identifier":
        return None
    links.append(Link(text(current), current, current))
    links.reverse()
    return links


def _decorates(chain: Node) -> bool:
    """The chain is a decorator, applied as it is or called (`@cuda.jit`, `@cuda.jit(device=True)`)."""
    parent = chain.parent
    if parent is not None and parent.type == "call" and parent.child_by_field_name("function") == chain:
        parent = parent.parent
    return parent is not None and parent.type == "decorator"


def _is_called(node: Node) -> bool:
    """The name is called, constructed, applied as a decorator or subclassed: not an `isinstance` check, an
    annotation or an entry of a registry list, which run the same on any device."""
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "call":
        return parent.child_by_field_name("function") == node
    if parent.type == "decorator":
        return True
    return parent.type == "argument_list" and parent.parent is not None and parent.parent.type == "class_definition"


def _enclosing_call(node: Node) -> Node | None:
    current: Node | None = node
    for _ in range(12):
        if current is None:
            return None
        if current.type == "call":
            return current
        if current.type in ("module", "block", "function_definition", "class_definition"):
            return None
        current = current.parent
    return None


_BACKEND_SPEC = re.compile(r"^(?:nccl|(?:\w+:\w+)(?:,\w+:\w+)*)$")


def _is_backend_spec(text_: str) -> bool:
    return "nccl" in text_ and bool(_BACKEND_SPEC.match(text_))
