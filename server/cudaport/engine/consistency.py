"""Is the result of a set of fixes still the same program? Judged whole, for every fix before it is offered.

Three things a rewrite must not do, whatever rule it comes from:
- leave the file unparsable (more syntax errors than before);
- rename a name the program defines and reads (a variable, a `self.X` attribute, another object's attribute, a
  string key, a C identifier) in some places but not all: read but no longer defined, or defined but no longer
  read;
- read a name nothing defines (Python), or define a second time a name the scope already defines.

The names are those the edits touch (`analyzers.names`); the result is worked out from the text before the fix
when every edit renames one token or inserts whole lines (`NameReader.predicted`), and parsed otherwise. A fix
whose result fails is not offered: its finding becomes `manual`, saying why (see Engine)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from ..analyzers.common.names import Affected, NameReader, Occurrence, Role
from ..i18n import t
from ..model.findings import Edit
from ..model.records import record
from ..model.source import apply_edits
from . import fixplan

_KEYS = ("var", "attr", "member", "key", "c")


@record(frozen=True, slots=True)
class Problem:
    """Why a result is not the same program; `words`: the names (or string keys) at fault, to find the edits that
    caused it; `span`: for a syntax error, where it is in the result."""

    reason: str
    words: frozenset[str]
    span: tuple[int, int] | None = None


@record(frozen=True, slots=True)
class Verdict:
    problems: list[Problem]
    parsed: bool  # the result was parsed (not predicted from the text before)


def judge(
    reader: NameReader | None,
    parse: Callable[[bytes], Any],
    data: bytes,
    tree: Any,
    edits: Sequence[Edit],
    after: bytes | None = None,
    after_tree: Any | None = None,
) -> Verdict:
    """The problems of the text `edits` make of `data` (`tree` its parse). `after`/`after_tree`: the result as the
    caller has it already (a fix re-analyses it anyway); without them it is predicted where the reader can."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    if tree is None or not hasattr(tree, "root_node"):
        return Verdict([], parsed=False)  # a kind read without a syntax tree (Cython's words, a notebook's cells)
    root = tree.root_node
    if after_tree is None and reader is not None:
        names = reader.names_when_predicted
        affected = reader.affected(data, root, ordered) if names else _NOTHING
        before = reader.occurrences(data, root, affected) if names else []
        prediction = reader.predicted(data, root, ordered, affected, before)
        if prediction is not None:
            problems = [_local_syntax(data, span, ordered) for span in prediction.syntax]
            if prediction.occurrences is not None:
                problems += _names(reader, before, prediction.occurrences)
            return Verdict(problems, parsed=False)
    if after is None:
        after = apply_edits(data, ordered)
    if after_tree is None:
        after_tree = parse(after)
    if after_tree is None:
        return Verdict([], parsed=False)
    problems = _syntax(root, after_tree.root_node, after)
    if reader is not None:
        affected = reader.affected(data, root, ordered)
        before = reader.occurrences(data, root, affected)
        problems += _names(reader, before, reader.occurrences(after, after_tree.root_node, affected))
    return Verdict(problems, parsed=True)


_NOTHING = Affected(frozenset(), frozenset())


def _local_syntax(data: bytes, span: tuple[int, int], edits: list[Edit]) -> Problem:
    """A statement whose rewrite would not parse: where it lands in the result."""
    start, end = fixplan.moved(span[0], edits), fixplan.moved(span[1], edits)
    line = data.count(b"\n", 0, span[0]) + 1
    return Problem(t("the file would no longer parse (line {line})", line=line), frozenset(), (start, max(start, end)))


# ---- syntax --------------------------------------------------------------------------------------------------
def syntax_errors(root: Any, limit: int = 10_000) -> list[tuple[int, int]]:
    """The spans of ERROR and MISSING nodes (only subtrees that have errors are walked)."""
    out: list[tuple[int, int]] = []
    if not root.has_error:
        return out
    pending = [root]
    while pending and len(out) < limit:
        node = pending.pop()
        if node.is_error or node.is_missing:
            out.append((node.start_byte, node.end_byte))
        elif node.has_error:
            pending.extend(node.children)
    return out


def _syntax(root: Any, after_root: Any, after: bytes) -> list[Problem]:
    old, new = syntax_errors(root), syntax_errors(after_root)
    if len(new) <= len(old):
        return []
    start, end = sorted(new)[0] if not old else _first_new(old, new)
    line = after.count(b"\n", 0, start) + 1
    return [Problem(t("the file would no longer parse (line {line})", line=line), frozenset(), (start, end))]


def _first_new(old: list[tuple[int, int]], new: list[tuple[int, int]]) -> tuple[int, int]:
    """A syntax error of the result that the text before did not have (by its size and order: offsets moved)."""
    remaining = Counter(e - s for s, e in old)
    for span in sorted(new):
        size = span[1] - span[0]
        if remaining[size]:
            remaining[size] -= 1
            continue
        return span
    return sorted(new)[-1]


# ---- names ---------------------------------------------------------------------------------------------------
def _resolved(occurrences: list[Occurrence]) -> Counter[tuple[str, str, str, Role]]:
    """How often each (namespace, scope, name) is defined and read: a variable read is looked up through its
    frames to the innermost one that defines it ("?" if none does)."""
    defined = {(o.namespace, o.frames[0], o.name) for o in occurrences if o.role & Role.DEFINES}
    counts: Counter[tuple[str, str, str, Role]] = Counter()
    for o in occurrences:
        if o.role & Role.DEFINES:
            counts[(o.namespace, o.frames[0], o.name, Role.DEFINES)] += 1
        if o.role & Role.READS:
            scope = o.frames[0]
            if o.namespace == "var":
                scope = next((f for f in o.frames if ("var", f, o.name) in defined), "?")
            counts[(o.namespace, scope, o.name, Role.READS)] += 1
    return counts


def _names(reader: NameReader, before: list[Occurrence], after: list[Occurrence]) -> list[Problem]:
    old, new = _resolved(before), _resolved(after)
    # An import the rewrite leaves unused stays: the program still runs, and taking it out could change what
    # runs when the module loads (ruff's F401 may then flag it; `cudaport fix` never removes code).
    imports = {(o.namespace, o.frames[0], o.name) for o in before if o.imported}
    imports -= {(o.namespace, o.frames[0], o.name) for o in before if o.role & Role.DEFINES and not o.imported}
    wildcard = any(o.name == "*" and o.namespace == "var" for o in after)
    problems: list[Problem] = []
    keys = {(ns, scope, name) for ns, scope, name, _ in old} | {(ns, scope, name) for ns, scope, name, _ in new}
    for namespace, scope, name in sorted(keys):
        if name == "*":
            continue
        d0, r0 = old[(namespace, scope, name, Role.DEFINES)], old[(namespace, scope, name, Role.READS)]
        d1, r1 = new[(namespace, scope, name, Role.DEFINES)], new[(namespace, scope, name, Role.READS)]
        shown = _spelled(namespace, name)
        if scope == "?":
            if r1 > r0 and not wildcard and not reader.unresolved_ok(name):
                problems.append(
                    Problem(t("it would read {name}, which nothing in the file defines", name=shown), frozenset({name}))
                )
            continue
        if d0 and r0 and not d1 and r1:
            problems.append(
                Problem(
                    t("{name} would still be read but no longer defined (its definition is renamed)", name=shown),
                    frozenset({name}),
                )
            )
        elif d0 and r0 and d1 and not r1 and namespace != "c" and (namespace, scope, name) not in imports:
            # (C: an unused macro or variable still builds)
            problems.append(
                Problem(
                    t("{name} would still be defined but no longer read (its reads are renamed)", name=shown),
                    frozenset({name}),
                )
            )
        elif d0 and d1 > d0 and namespace in ("var", "attr", "c"):
            problems.append(
                Problem(
                    t("{name} would be defined a second time beside the line that defines it", name=shown),
                    frozenset({name}),
                )
            )
    return problems


def _spelled(namespace: str, name: str) -> str:
    if namespace == "attr":
        return f"`self.{name}`"
    if namespace == "member":
        return f"`.{name}`"
    if namespace == "key":
        return t('the key `"{name}"`', name=name)
    return f"`{name}`"
