"""Whether a C-family file can give any finding for a target, from its bytes alone: a file that names nothing the
rule data knows and has none of the words the pattern finders start from is not parsed at all (a batch run over a
tree; an editor's buffer is always analysed).

Each finder of CFamilyAnalyzer.analyze returns before any work unless the buffer has its words, and so does this
test, finder by finder (a finder added there adds its words here; tests/test_prefilter.py checks every fixture for
every target, and bench/bench_check.py's notes say how the real trees were compared):

- names (NameFinder): a word of the symbol or namespace tables, or one their prefixes start. A generic name (`min`,
  `sqrt`) counts only called in device code or in a .cu/.cuh file, so without a device qualifier or a device macro
  (syntax.DEVICE_MACRO) its word alone does not keep a file; a generic type (`float4`) always does;
- the headers (HeaderFinder): an #include of a header the rule data knows; the implicit runtime include
  (ImplicitRuntime) concerns .cu files only, which are always analysed, as are .cuh files;
- warp assumptions, kernels, inline assembly, pointer arithmetic on handles, vector operators, the clang
  differences and the runtime initialisation: the words each tests with `Scan.has` before it looks, and the
  declaration pattern of an initialised variable-length array.
"""

from __future__ import annotations

import re

from ...knowledge.ruleset import RuleSet
from ..common.syntax import DEVICE_MACRO
from . import clangdiff, includes, kernels, vectorops, warp

_WORD = re.compile(rb"[A-Za-z_]\w*")  # Scan.words's
_ALWAYS = (".cu", ".cuh")
_CALLABLE_KINDS = frozenset({"function", "device_function"})
_DEVICE_WORDS = (b"__device__", b"__global__")  # with them, any generic name may be called in device code
_VECTOR_TYPE = re.compile(vectorops.VECTOR_TYPE.pattern.encode())


class Gate:
    """What keeps a file for one target: words it may contain anywhere, and whole words."""

    __slots__ = ("anywhere", "generic_calls", "names", "operators", "prefix")

    def __init__(self, ruleset: RuleSet, target_name: str, names: frozenset[bytes], generic_calls: frozenset[bytes],
                 prefix: re.Pattern[bytes] | None) -> None:  # fmt: skip
        target = ruleset.targets.get(target_name)
        anywhere: list[bytes] = [*_DEVICE_WORDS, *kernels.WORDS, b"asm", *clangdiff.WORDS]
        if target is None or target.lanes != warp.CUDA_LANES:
            anywhere.extend(warp.GATE)
        if target is not None:
            anywhere.extend(name.encode() for name in target.pointer_types)
            if target.init is not None:
                anywhere.extend(word.encode() for word in target.init.triggers)
        self.anywhere = tuple(dict.fromkeys(anywhere))
        self.operators = target is not None and bool(target.vector_operators)
        self.names = names
        self.generic_calls = generic_calls
        self.prefix = prefix

    def keeps(self, data: bytes, words: set[bytes], ruleset: RuleSet) -> bool:
        """Whether the buffer, whose words (Scan.words) are `words`, may give findings. Most files that are kept
        name a symbol: their words are looked at first."""
        if not words.isdisjoint(self.names):
            return True
        if self.prefix is not None and any(self.prefix.match(word) for word in words):
            return True
        if any(word in data for word in self.anywhere):
            return True
        if not words.isdisjoint(self.generic_calls) and any(
            word.isupper() and DEVICE_MACRO.match(word) for word in words
        ):
            return True  # a project's device macro makes a function device code (`HOST_DEVICE float f()`)
        if self.operators and b"operator" in data and any(_VECTOR_TYPE.fullmatch(word) for word in words):
            return True
        if clangdiff.VLA_INIT.search(data) is not None:
            return True
        if b"include" in data:
            for match in includes.INCLUDE.finditer(data):
                if ruleset.header(match.group(2).decode("utf-8", "replace").strip()) is not None:
                    return True
        return False


class Prefilter:
    """The gates of a rule set, one per target, built when a target is first asked about."""

    def __init__(self, ruleset: RuleSet, symbol_words: frozenset[bytes], namespace_words: frozenset[bytes],
                 prefix: re.Pattern[bytes] | None) -> None:  # fmt: skip
        self.ruleset = ruleset
        generic_calls = set()
        for name in ruleset.generic_names:
            symbol = ruleset.symbols.get(name)
            if symbol is not None and symbol.kind in _CALLABLE_KINDS:
                generic_calls.add(name.encode())
        self._generic_calls = frozenset(generic_calls)
        self._names = (symbol_words - self._generic_calls) | namespace_words
        self._prefix = prefix
        self._gates: dict[str, Gate] = {}

    def keeps(self, data: bytes, path: str, target: str, words: set[bytes] | None) -> tuple[bool, set[bytes] | None]:
        """Whether a file of this path and text may give findings for `target`, and its words (`words` when they
        are known already: they do not depend on the target; None when they were not needed)."""
        if path.lower().endswith(_ALWAYS):
            return True, words
        gate = self._gates.get(target)
        if gate is None:
            gate = self._gates[target] = Gate(self.ruleset, target, self._names, self._generic_calls, self._prefix)
        if words is None:
            words = set(_WORD.findall(data))
        return gate.keeps(data, words, self.ruleset), words
