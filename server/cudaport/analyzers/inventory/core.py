"""What every inventory analyzer shares: the tokens a file kind yields, the knowledge of rules/inventory.toml that
turns tokens into findings, and the analyzer shell (quick trigger test, ranges, fixes).

A file kind's analyzer only says *where* the words are and what they are (a program name, a compiler flag, a
package, an image, a configuration key and value); *which* of them are CUDA dependencies, and what each target has
instead, is data."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ...i18n import t
from ...knowledge.filekinds import file_kind
from ...knowledge.python import PythonKnowledge, load_python_knowledge
from ...knowledge.ruleset import RuleDataError, RuleSet, Symbol, TargetMapping
from ...model.findings import Applicability, Difficulty, Edit, Finding, FindingData, Fix
from ...model.records import field, record
from ..common.base import FileContext


@record(frozen=True, slots=True)
class Token:
    """One word of a file at a byte span, with what it is there (`role`) and where (`context`: the CMake command
    it is an argument of, a configuration key's dotted path, the package a version belongs to)."""

    role: str
    text: str
    start: int
    end: int
    context: str = ""
    # What the analyzer knows beside the token: the torch version the manifest pins, say ({"torch": "2.5.1"}).
    facts: Mapping[str, str] = field(default_factory=dict)


@record(frozen=True, slots=True)
class TargetWord:
    """A target's counterpart of a matched word: a template (`\\1` the regex groups, `{rocm}` a version table's
    value), its difficulty and a note."""

    replacement: str | None
    difficulty: Difficulty | None
    note: str
    by_group: Mapping[str, str] = field(default_factory=dict)  # `<target>-map`: the first group -> replacement


@record(frozen=True, slots=True)
class Match:
    """A `[[match]]` entry: which tokens are a CUDA dependency and what each target uses instead."""

    rule: str
    roles: frozenset[str]
    kinds: frozenset[str]  # file languages; empty: every inventory kind
    pattern: re.Pattern[str]
    context: re.Pattern[str] | None
    kind: str  # the word messages call it by
    counterparts: Mapping[str, TargetWord]
    fix: str  # "safe": the counterpart is a safe edit; "unsafe": an unsafe one; "": only named
    file: str  # "" or "once": at most one finding per file for this entry (the first token)


@record
class InventoryKnowledge:
    matches: list[Match]
    by_role: dict[str, list[Match]]
    versions: dict[str, dict[str, dict[str, str]]]  # table -> target -> key ("2.5") -> value ("rocm6.2")
    python: PythonKnowledge

    def matches_for(self, role: str, language: str) -> Iterator[Match]:
        for entry in self.by_role.get(role, ()):
            if not entry.kinds or language in entry.kinds:
                yield entry


_KNOWN: dict[int, tuple[RuleSet, InventoryKnowledge]] = {}


def knowledge(ruleset: RuleSet) -> InventoryKnowledge:
    """Loaded once per rule set (a rule set is never changed after loading)."""
    known = _KNOWN.get(id(ruleset))
    if known is None or known[0] is not ruleset:
        known = (ruleset, _load(ruleset))
        if len(_KNOWN) > 8:
            _KNOWN.clear()
        _KNOWN[id(ruleset)] = known
    return known[1]


def _load(ruleset: RuleSet) -> InventoryKnowledge:
    table: Mapping[str, Any] = ruleset.tables.get("inventory") or {}
    where = "rules/inventory.toml"
    matches = []
    for index, raw in enumerate(table.get("match", [])):
        here = f"{where}: match #{index + 1}"
        rule = str(raw.get("rule", ""))
        if rule not in ruleset.rules:
            raise RuleDataError(f"{here} names unknown rule {rule!r}")
        try:
            pattern = re.compile(str(raw["pattern"]))
            context = re.compile(str(raw["context"])) if "context" in raw else None
        except KeyError:
            raise RuleDataError(f"{here} has no pattern") from None
        except re.error as exc:
            raise RuleDataError(f"{here}: bad regular expression: {exc}") from None
        counterparts = {t: _target_word(raw, t, here) for t in ruleset.targets}
        roles = raw.get("roles") or [raw.get("role", "")]
        matches.append(
            Match(
                rule,
                frozenset(str(r) for r in roles),
                frozenset(str(k) for k in raw.get("kinds", [])),
                pattern,
                context,
                str(raw.get("kind", "setting")),
                counterparts,
                _fix_kind(raw.get("fix", False), here),
                str(raw.get("file", "")),
            )
        )
    by_role: dict[str, list[Match]] = {}
    for entry in matches:
        for role in entry.roles:
            by_role.setdefault(role, []).append(entry)
    versions: dict[str, dict[str, dict[str, str]]] = {}
    for name, per_target in (table.get("versions") or {}).items():
        versions[name] = {str(t): {str(k): str(v) for k, v in pairs.items()} for t, pairs in per_target.items()}
    return InventoryKnowledge(matches, by_role, versions, load_python_knowledge(ruleset))


def _fix_kind(value: Any, where: str) -> str:
    if value is True:
        return "safe"
    if value is False:
        return ""
    if value == "unsafe":
        return "unsafe"
    raise RuleDataError(f'{where}: fix must be true, false or "unsafe", not {value!r}')


def _target_word(raw: Mapping[str, Any], target: str, where: str) -> TargetWord:
    replacement = raw.get(target)
    by_group = {str(k): str(v) for k, v in (raw.get(f"{target}-map") or {}).items()}
    if by_group and not replacement:
        replacement = "\\0"
    level = raw.get(f"{target}-difficulty")
    try:
        difficulty = Difficulty.parse(str(level)) if level else None
    except ValueError as exc:
        raise RuleDataError(f"{where}: {target}-difficulty: {exc}") from None
    note = str(raw.get(f"{target}-note", ""))
    return TargetWord(str(replacement) if replacement else None, difficulty, note, by_group)


_FIELD = re.compile(r"\{(\w+)\}")


class Matcher:
    """Turns tokens into findings for one file and target."""

    def __init__(
        self, ruleset: RuleSet, language: str, context: FileContext, data: bytes, facts: Mapping[str, str] | None = None
    ) -> None:
        self.ruleset = ruleset
        self.facts = facts or {}  # what the whole file says (the torch release it pins)
        self.know = knowledge(ruleset)
        self.language = language
        self.target = context.target
        self.data = data
        self.findings: list[Finding] = []
        self._once: set[int] = set()

    def feed(self, tokens: Iterable[Token]) -> list[Finding]:
        for token in tokens:
            self.token(token)
        return self.findings

    def token(self, token: Token) -> None:
        if token.role == "env":
            self._env(token)
            return
        if token.role == "program":
            self._command(token)
        for entry in self.know.matches_for(token.role, self.language):
            found = entry.pattern.fullmatch(token.text)
            if found is None or (entry.context is not None and not entry.context.search(token.context)):
                continue
            if entry.file == "once":
                if id(entry) in self._once:
                    return
                self._once.add(id(entry))
            self._matched(entry, token, found)
            return

    # ---- the three sources of knowledge -----------------------------------------------------------------------
    def _matched(self, entry: Match, token: Token, found: re.Match[str]) -> None:
        word = entry.counterparts.get(self.target, TargetWord(None, None, ""))
        replacement, note = self._render(word, found, token)
        mapping = TargetMapping(replacement or "", word.difficulty, note)
        symbol = Symbol(token.text, entry.kind, entry.rule, "inventory", {self.target: mapping})
        self._add(symbol, token, entry.fix, entry.kind)

    def _render(self, word: TargetWord, found: re.Match[str], token: Token) -> tuple[str | None, str]:
        if word.replacement is None:
            return None, word.note
        if word.replacement == "=":
            return token.text, word.note
        if word.by_group:
            group = found.group(1) if found.re.groups else None
            chosen = word.by_group.get(group or "")
            return (chosen, word.note) if chosen is not None else (None, word.note)
        template = found.expand(word.replacement.replace("\\0", "\\g<0>"))
        missing: list[str] = []

        def value(field_match: re.Match[str]) -> str:
            name = field_match.group(1)
            looked_up = self._version_value(name, token)
            if looked_up is None:
                missing.append(name)
                return field_match.group(0)
            return looked_up

        rendered = _FIELD.sub(value, template)
        if missing:
            known = token.facts.get("torch") or self.facts.get("torch", "")
            why = f"torch {known}" if known else t("a torch release the file does not pin")
            extra = t(
                "cudaport knows no {index} wheel index for {release}: pick the one your release has",
                index=missing[0],
                release=why,
            )
            return None, t("{note}; {more}", note=t(word.note), more=extra) if word.note else extra
        return rendered, word.note

    def _version_value(self, name: str, token: Token) -> str | None:
        """`{rocm}`: the value the `[versions.rocm]` table gives the target for the torch release the file pins
        (its major.minor, or the whole version)."""
        table = self.know.versions.get(name, {}).get(self.target)
        version = token.facts.get("torch") or self.facts.get("torch")
        if not table or not version:
            return None
        parts = version.split("+", 1)[0].split(".")
        for size in (3, 2):
            key = ".".join(parts[:size])
            if key in table:
                return table[key]
        return None

    def _env(self, token: Token) -> None:
        entry = self.know.python.env(token.text)
        if entry is None:
            self.token(Token("env-other", token.text, token.start, token.end, token.context, token.facts))
            return
        counterpart = entry.counterparts.get(self.target)
        replacement = entry.replacement(token.text, self.target)
        difficulty = counterpart.difficulty if counterpart is not None else None
        note = counterpart.note if counterpart is not None else ""
        symbol = Symbol(
            token.text,
            "variable",
            entry.rule,
            "environment",
            {self.target: TargetMapping(replacement or "", difficulty, note)},
        )
        self._add(symbol, token, "safe", "environment")

    def _command(self, token: Token) -> None:
        name = token.text.rsplit("/", 1)[-1]
        command = self.know.python.commands.get(name)
        if command is None:
            return
        self._add(command.symbol(), token, "", "command")

    # ---- findings -------------------------------------------------------------------------------------------
    def _add(self, symbol: Symbol, token: Token, fix_kind: str, kind: str) -> None:
        outcome = self.ruleset.outcome(symbol, self.target)
        difficulty = outcome.difficulty
        message = outcome.message
        if fix_kind == "unsafe" and difficulty == Difficulty.MECHANICAL:
            difficulty = Difficulty.MANUAL  # only an unsafe edit exists: a person checks what reads the value
            named = symbol.targets[self.target]
            rule = self.ruleset.rule(symbol.rule)
            message = self.ruleset.format_message(rule, "manual", self.target, symbol, named.replacement, named.note)
        fix = None
        replacement = outcome.replacement
        if fix_kind == "unsafe":
            given = symbol.targets.get(self.target)
            replacement = given.replacement if given is not None and given.replacement else None
        if replacement and replacement != token.text and token.end > token.start and "<" not in replacement:
            title = t("Replace `{name}` with `{replacement}`", name=token.text, replacement=replacement)
            edit = (Edit(token.start, token.end, replacement),)
            if fix_kind == "safe" and difficulty <= Difficulty.MECHANICAL:
                fix = Fix(title, edit)
            elif fix_kind == "unsafe":
                fix = Fix(title, edit, Applicability.UNSAFE)
        data: FindingData = {"kind": kind, "library": "inventory"}
        self.findings.append(
            Finding(
                rule=symbol.rule,
                start=token.start,
                end=token.end,
                difficulty=difficulty,
                message=message,
                symbol=token.text,
                replacement=replacement if fix is not None else None,
                fix=fix,
                data=data,
            )
        )


class InventoryAnalyzer:
    """The shell of every inventory analyzer: a quick test for the file kind's trigger words, parsing, tokens
    (the subclass), findings (the Matcher) and the ranges a session asks for. Inventory files are small and edited
    rarely: an edit re-analyses the whole file (no incremental profile)."""

    language = ""
    incremental = None

    def __init__(self, ruleset: RuleSet) -> None:
        self.ruleset = ruleset
        kind = file_kind(self.language)
        self.trigger = kind.trigger if kind is not None else ()

    def parse(self, data: bytes, old_tree: Any | None = None) -> Any:
        return None

    def tokens(self, data: bytes, tree: Any, context: FileContext) -> Iterable[Token]:
        raise NotImplementedError

    def analyze(
        self, data: bytes, tree: Any, context: FileContext, ranges: list[tuple[int, int]] | None = None
    ) -> list[Finding]:
        if self.trigger and not any(word in data for word in self.trigger):
            return []
        tokens = list(self.tokens(data, tree, context))
        findings = Matcher(self.ruleset, self.language, context, data, file_facts(tokens)).feed(tokens)
        if ranges is not None:
            findings = [f for f in findings if any(lo <= f.start < hi or f.start == lo for lo, hi in ranges)]
        return sorted(findings, key=Finding.sort_key)


def file_facts(tokens: Iterable[Token]) -> dict[str, str]:
    """What a file's tokens say about the whole file: the torch release it pins (`torch==2.5.1+cu121`)."""
    for token in tokens:
        version = token.facts.get("torch")
        if token.role == "package" and version:
            return {"torch": version}
    return {}


def words(
    text: str, base: int, role: str, context: str = "", facts: Mapping[str, str] | None = None
) -> Iterator[Token]:
    """The whitespace-separated words of `text` (which starts at byte `base`) as tokens; `KEY=value` words also
    yield their value, so that `-arch=sm_80` and `--gres=gpu:2` are matched whole and `CUDA_HOME=/usr/local/cuda`
    by its name."""
    encoded = text.encode("utf-8", "surrogatepass")
    for found in _WORD.finditer(encoded):
        word = found.group(0).decode("utf-8", "replace")
        yield Token(role, word, base + found.start(), base + found.end(), context, facts or {})


_WORD = re.compile(rb"[^\s'\"`;|&()<>]+")
