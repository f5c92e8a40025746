"""Which words of a Python buffer the tree must be asked about: the names the rule data knows, the words that spell
cuda/nccl/nvtx/cudnn and mean something, and the local names of imports that lead to known APIs. What the rule
data makes of an import statement is worked out once per distinct statement and target."""

from __future__ import annotations

import re
from collections.abc import Callable

from ...knowledge.python import PythonKnowledge
from ...model.records import record
from .imports import IDENTIFIER_BYTES, Imports, StatementFacts, spelled
from .strings import is_backend_spec

_WORD = re.compile(rb"[A-Za-z_]\w*")
_MARKER = re.compile(rb"cuda|nccl|nvtx|cudnn")  # in lower-cased text: words spelling one may be CUDA names
_NOTES_LIMIT = 8192


@record(frozen=True, slots=True)
class StatementNotes:
    mentions_known: bool  # imports something the rule data knows
    alias_words: frozenset[bytes]  # local names it binds that lead to known APIs


class Vocabulary:
    """The words worth a look for each target, and the notes on import statements, cached for the analyzer's
    lifetime."""

    def __init__(self, know: PythonKnowledge, more: Callable[[str], frozenset[bytes]] | None = None) -> None:
        self.know = know
        self._more = more  # words another pass looks for on a target (the operator-coverage rule's API names)
        self._vocabularies: dict[str, tuple[frozenset[bytes], frozenset[str]]] = {}
        self._prefix_cache: frozenset[str] | None = None
        self._statement_notes: dict[tuple[StatementFacts, str], StatementNotes] = {}

    def candidates(self, data: bytes, target: str, windows: list[tuple[int, int]]) -> set[bytes]:
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
            more = self._more(target) if self._more is not None else frozenset()
            cached = (frozenset(w.encode() for w in words) | more, frozenset(interesting))
            self._vocabularies[target] = cached
        return cached

    def _worth(self, word: bytes, interesting: frozenset[str]) -> bool:
        name = word.decode("ascii", "replace")
        return name in interesting or self.know.env(name) is not None or is_backend_spec(name)

    def alias_words(self, imports: Imports, target: str) -> set[bytes]:
        """Local names of imports that lead to known APIs (`tc` for torch.cuda, `cp` for cupy): their uses do not
        spell cuda."""
        words: set[bytes] = set()
        for statement in imports.statements:
            words |= self.notes(statement.facts, target).alias_words
        return words

    def notes(self, facts: StatementFacts, target: str) -> StatementNotes:
        """What the rule data makes of an import statement, worked out once per distinct statement and target."""
        key = (facts, target)
        notes = self._statement_notes.get(key)
        if notes is None:
            if len(self._statement_notes) >= _NOTES_LIMIT:
                self._statement_notes.clear()
            notes = self._statement_notes[key] = StatementNotes(
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
