"""What to verify after porting, tailored to what the code uses (`rules/verification.toml`).

The checks' prose is read in the active language (`i18n`: the catalogue translates the rule data's English as it
is written there, line breaks included), with its whitespace made single spaces for display."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..i18n import t
from ..knowledge.ruleset import RuleDataError, RuleSet
from ..model.records import record

TABLE = "verification"


@record(frozen=True)
class CheckSpec:
    id: str
    title: str
    check: str
    threshold: str
    why: str
    always: bool
    rules: tuple[str, ...]
    symbols: tuple[str, ...]
    details: Mapping[str, str]


@record(frozen=True)
class Trigger:
    """A rule found in this code base, and the names found for it, that made a check apply."""

    rule: str
    names: tuple[str, ...]


@record(frozen=True)
class CheckItem:
    """One verification step as the report shows it."""

    spec: CheckSpec
    applies: bool
    triggers: tuple[Trigger, ...]
    details: Mapping[str, str]  # per target in the report


def load_checks(ruleset: RuleSet) -> list[CheckSpec]:
    table = ruleset.tables.get(TABLE, {})
    entries = table.get("check", [])
    if not isinstance(entries, list):
        raise RuleDataError(f"{TABLE}.toml: 'check' must be an array of tables")
    specs: list[CheckSpec] = []
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        where = f"{TABLE}.toml: check #{index + 1}"
        if not isinstance(entry, dict):
            raise RuleDataError(f"{where}: must be a table")
        spec = _spec(entry, where)
        if spec.id in seen:
            raise RuleDataError(f"{where}: id {spec.id!r} is used twice")
        seen.add(spec.id)
        specs.append(spec)
    return specs


def _spec(entry: Mapping[str, Any], where: str) -> CheckSpec:
    def text(key: str, required: bool = True, prose: bool = True) -> str:
        value = entry.get(key, "")
        if not isinstance(value, str) or (required and not value.strip()):
            raise RuleDataError(f"{where}: '{key}' must be a non-empty string")
        return _shown(value) if prose else " ".join(value.split())

    def strings(key: str) -> tuple[str, ...]:
        value = entry.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise RuleDataError(f"{where}: '{key}' must be a list of strings")
        return tuple(value)

    details = entry.get("detail", {})
    if not isinstance(details, dict) or not all(isinstance(v, str) for v in details.values()):
        raise RuleDataError(f"{where}: 'detail' must be a table of target = text")
    always = entry.get("always", False)
    if not isinstance(always, bool):
        raise RuleDataError(f"{where}: 'always' must be true or false")
    spec = CheckSpec(
        id=text("id", prose=False),
        title=text("title"),
        check=text("check"),
        threshold=text("threshold", required=False),
        why=text("why"),
        always=always,
        rules=strings("rules"),
        symbols=strings("symbols"),
        details={str(k): _shown(v) for k, v in details.items()},
    )
    if not spec.always and not spec.rules and not spec.symbols:
        raise RuleDataError(f"{where} ({spec.id}): give 'rules', 'symbols' or always = true")
    return spec


def _shown(value: str) -> str:
    """Prose of the checklist in the active language, on one line."""
    return " ".join((t(value) if value.strip() else value).split())


def evaluate(
    specs: Sequence[CheckSpec],
    used: Mapping[str, Iterable[str]],
    targets: Sequence[str],
    any_dependency: bool,
) -> list[CheckItem]:
    """`used` maps each rule code found to the names found for it. A check applies when a rule it lists (by code
    or prefix) or a name it lists (by glob) was found; `always` checks apply whenever there is a CUDA dependency."""
    items: list[CheckItem] = []
    for spec in specs:
        triggers: list[Trigger] = []
        for code in sorted(used):
            names = sorted(set(used[code]))
            if any(code.startswith(prefix) for prefix in spec.rules):
                triggers.append(Trigger(code, tuple(names)))
                continue
            matched = [n for n in names if any(fnmatch.fnmatchcase(n, glob) for glob in spec.symbols)]
            if matched:
                triggers.append(Trigger(code, tuple(matched)))
        applies = bool(triggers) or (spec.always and any_dependency)
        details = {t: spec.details[t] for t in targets if t in spec.details}
        items.append(CheckItem(spec, applies, tuple(triggers), details))
    return items
