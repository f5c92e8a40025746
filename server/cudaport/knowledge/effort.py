"""The effort weights: `rules/effort.toml` read into a model (kinds of finding, their selectors, the hours of a
first use and of each further one, per unit of work), and the configuration's overrides of it (`effort`) checked
against it. The estimate itself is the report's (report.effort)."""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable, Mapping
from typing import Any

from ..model import records
from ..model.findings import Difficulty
from ..model.records import record
from .ruleset import OTHER_AREA, RuleDataError, RuleSet

TABLE = "effort"
UNITS = ("name", "file", "use")
WORK = (Difficulty.MECHANICAL, Difficulty.MANUAL, Difficulty.BLOCKER)  # what costs anything
_TOP_KEYS = {"hours-per-day", "difficulty", "file", "kind", "scale"}
_KIND_KEYS = {"name", "about", "rules", "areas", "findings", "kernels", *(d.label for d in WORK)}
_COST_KEYS = {"first", "more", "per"}
_KERNEL_MODES = ("unchanged", "rename", "rewrite")


class EffortDataError(ValueError):
    """Weights that cannot be used; `key` is where (`kind.kernel.blocker.first`), the message says why."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"'{key}': {message}" if key else message)
        self.key = key
        self.reason = message


@record(frozen=True, slots=True)
class Hours:
    low: float
    high: float

    def __add__(self, other: Hours) -> Hours:
        return Hours(self.low + other.low, self.high + other.high)

    def scaled(self, count: int) -> Hours:
        return Hours(self.low * count, self.high * count)

    @property
    def middle(self) -> float:
        return (self.low + self.high) / 2


NO_HOURS = Hours(0.0, 0.0)


@record(frozen=True, slots=True)
class Cost:
    first: Hours
    more: Hours
    per: str  # "name", "file" or "use"


@record(frozen=True)
class Kind:
    name: str
    about: str
    rules: tuple[str, ...]
    areas: tuple[str, ...]
    findings: tuple[str, ...]
    kernels: tuple[str, ...]
    costs: Mapping[Difficulty, Cost]

    def matches(self, rule: str, area: str, finding: str, kernels: str) -> bool:
        if (self.rules or self.areas) and not (
            any(rule.startswith(prefix) for prefix in self.rules) or area in self.areas
        ):
            return False
        if self.findings and finding not in self.findings:
            return False
        return not self.kernels or kernels in self.kernels


@record(frozen=True)
class EffortModel:
    hours_per_day: float
    file_hours: Mapping[Difficulty, Hours]
    kinds: tuple[Kind, ...]
    minor: float  # person-days (high end) per 1,000 lines: at most this is a minor change
    moderate: float
    lines_at_least: int  # a smaller tree counts as this many lines
    code_languages: tuple[str, ...]  # the files whose lines are the code the scale is measured against
    overridden: tuple[str, ...] = ()  # the keys the configuration changed, for the report's assumptions

    def days(self, hours: Hours) -> Hours:
        return Hours(hours.low / self.hours_per_day, hours.high / self.hours_per_day)


# ---- loading ----------------------------------------------------------------------------------------------------
def load_model(ruleset: RuleSet, overrides: Mapping[str, Any] | None = None) -> EffortModel:
    """The bundled weights with the configuration's `effort` table applied on top."""
    data = ruleset.tables.get(TABLE)
    if not isinstance(data, dict):
        raise RuleDataError("rules/effort.toml is missing from the rule data")
    try:
        base = parse(data, ruleset)
    except EffortDataError as exc:
        raise RuleDataError(f"rules/effort.toml: {exc}") from None
    if not overrides:
        return base
    model = parse(merged(data, overrides), ruleset)  # checked by config.py already: errors there name the file
    return _with_overrides(model, overrides)


def check_overrides(overrides: Any, ruleset: RuleSet) -> dict[str, Any]:
    """The configuration's `effort` table, checked against the bundled weights (EffortDataError names the key)."""
    if not isinstance(overrides, dict):
        raise EffortDataError("", "must be a table (see rules/effort.toml for its keys)")
    data = ruleset.tables.get(TABLE, {})
    _check_override_shape(overrides, data)
    parse(merged(data, overrides), ruleset)
    return copy.deepcopy(overrides)


def merged(data: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """`data` with `overrides` on top: tables merge key by key; `kind.<name>` changes the kind of that name."""
    out = copy.deepcopy(dict(data))
    for key, value in overrides.items():
        if key == "kind":
            kinds = {k.get("name"): k for k in out.get("kind", []) if isinstance(k, dict)}
            for name, table in value.items():
                kinds[name].update(_deep_merge(kinds[name], table))
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _deep_merge(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _check_override_shape(overrides: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    """Only keys the weights have: a misspelt key must not be ignored silently."""
    for key, value in overrides.items():
        if key not in _TOP_KEYS:
            raise EffortDataError(key, f"unknown key (known: {', '.join(sorted(_TOP_KEYS))})")
        if key == "kind":
            if not isinstance(value, dict):
                raise EffortDataError(key, "must be a table of kind name = { mechanical, manual, blocker }")
            names = [k.get("name") for k in data.get("kind", []) if isinstance(k, dict)]
            for name, table in value.items():
                if name not in names:
                    raise EffortDataError(f"kind.{name}", f"unknown kind (known: {', '.join(map(str, names))})")
                if not isinstance(table, dict):
                    raise EffortDataError(f"kind.{name}", "must be a table")
                for sub in table:
                    if sub in ("name", "rules", "areas", "findings", "kernels") or sub not in _KIND_KEYS:
                        raise EffortDataError(
                            f"kind.{name}.{sub}", "unknown key (a kind's weights: mechanical, manual, blocker)"
                        )
        elif key in ("difficulty", "file", "scale") and not isinstance(value, dict):
            raise EffortDataError(key, "must be a table")


def parse(data: Mapping[str, Any], ruleset: RuleSet) -> EffortModel:
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise EffortDataError(unknown[0], f"unknown key (known: {', '.join(sorted(_TOP_KEYS))})")
    per_day = _number(data.get("hours-per-day"), "hours-per-day")
    if not 0 < per_day <= 24:
        raise EffortDataError("hours-per-day", "must be more than 0 and at most 24")
    defaults_table = _table(data.get("difficulty"), "difficulty")
    defaults: dict[Difficulty, Cost] = {}
    for difficulty in WORK:
        key = f"difficulty.{difficulty.label}"
        defaults[difficulty] = _cost(_table(defaults_table.get(difficulty.label), key), key, None)
    _no_other_keys(defaults_table, {d.label for d in WORK}, "difficulty")
    file_table = _table(data.get("file"), "file")
    _no_other_keys(file_table, {d.label for d in WORK}, "file")
    file_hours = {}
    for difficulty in WORK:
        key = f"file.{difficulty.label}"
        entry = _table(file_table.get(difficulty.label), key)
        _no_other_keys(entry, {"hours"}, key)
        file_hours[difficulty] = _hours(entry.get("hours"), f"{key}.hours")
    kinds = _kinds(data.get("kind"), defaults, ruleset)
    scale = _table(data.get("scale"), "scale")
    _no_other_keys(scale, {"minor", "moderate", "lines-at-least", "code-languages"}, "scale")
    minor = _number(scale.get("minor"), "scale.minor")
    moderate = _number(scale.get("moderate"), "scale.moderate")
    if not 0 < minor <= moderate:
        raise EffortDataError("scale", "needs 0 < minor <= moderate (person-days per 1,000 lines)")
    floor = scale.get("lines-at-least")
    if not isinstance(floor, int) or isinstance(floor, bool) or floor < 1:
        raise EffortDataError("scale.lines-at-least", f"must be a whole number of lines, at least 1, not {floor!r}")
    languages = _strings(scale.get("code-languages"), "scale.code-languages")
    return EffortModel(per_day, file_hours, kinds, minor, moderate, floor, languages)


def _kinds(raw: Any, defaults: Mapping[Difficulty, Cost], ruleset: RuleSet) -> tuple[Kind, ...]:
    if not isinstance(raw, list) or not raw:
        raise EffortDataError("kind", "must be an array of tables ([[kind]]), the last one without selectors")
    areas = {area.name for area in ruleset.areas} | {OTHER_AREA}
    kinds: list[Kind] = []
    for index, entry in enumerate(raw):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"]:
            raise EffortDataError(f"kind #{index + 1}", "must be a table with a name")
        name = entry["name"]
        where = f"kind.{name}"
        if any(k.name == name for k in kinds):
            raise EffortDataError(where, "named twice")
        _no_other_keys(entry, _KIND_KEYS, where)
        rules = _strings(entry.get("rules", []), f"{where}.rules")
        for prefix in rules:
            if not any(code.startswith(prefix) for code in ruleset.rules):
                raise EffortDataError(f"{where}.rules", f"{prefix!r} matches no rule")
        kind_areas = _strings(entry.get("areas", []), f"{where}.areas")
        for area in kind_areas:
            if area not in areas:
                raise EffortDataError(f"{where}.areas", f"unknown area {area!r} (known: {', '.join(sorted(areas))})")
        kernels = _strings(entry.get("kernels", []), f"{where}.kernels")
        for mode in kernels:
            if mode not in _KERNEL_MODES:
                raise EffortDataError(f"{where}.kernels", f"{mode!r} is not one of {', '.join(_KERNEL_MODES)}")
        costs = {
            d: _cost(_table(entry.get(d.label, {}), f"{where}.{d.label}"), f"{where}.{d.label}", defaults[d])
            for d in WORK
        }
        kinds.append(
            Kind(
                name,
                str(entry.get("about", "")),
                rules,
                kind_areas,
                _strings(entry.get("findings", []), f"{where}.findings"),
                kernels,
                costs,
            )
        )
    last = kinds[-1]
    if last.rules or last.areas or last.findings or last.kernels:
        raise EffortDataError(f"kind.{last.name}", "the last kind takes every other finding: it has no selector")
    return tuple(kinds)


def _cost(entry: Mapping[str, Any], where: str, default: Cost | None) -> Cost:
    _no_other_keys(entry, _COST_KEYS, where)
    if default is None and not {"first", "more", "per"} <= set(entry):
        raise EffortDataError(where, "needs first, more and per")
    first = _hours(entry["first"], f"{where}.first") if "first" in entry else default.first  # type: ignore[union-attr]
    more = _hours(entry["more"], f"{where}.more") if "more" in entry else default.more  # type: ignore[union-attr]
    per = entry.get("per", default.per if default else "")
    if per not in UNITS:
        raise EffortDataError(f"{where}.per", f"must be one of {', '.join(UNITS)}, not {per!r}")
    return Cost(first, more, per)


def _hours(value: Any, where: str) -> Hours:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)
        or not 0 <= value[0] <= value[1]
    ):
        raise EffortDataError(where, f"must be [low, high] hours with 0 <= low <= high, not {value!r}")
    return Hours(float(value[0]), float(value[1]))


def _number(value: Any, where: str) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        raise EffortDataError(where, f"must be a number, not {value!r}")
    return float(value)


def _table(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise EffortDataError(where, "must be a table")
    return value


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise EffortDataError(where, "must be a list of strings")
    return tuple(value)


def _no_other_keys(entry: Mapping[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(entry) - known)
    if unknown:
        raise EffortDataError(f"{where}.{unknown[0]}", f"unknown key (known: {', '.join(sorted(known))})")


def _with_overrides(model: EffortModel, overrides: Mapping[str, Any]) -> EffortModel:
    keys = tuple(_flat_keys(overrides))
    return records.replace(model, overridden=keys)


def _flat_keys(table: Mapping[str, Any], prefix: str = "") -> Iterable[str]:
    for key, value in table.items():
        if isinstance(value, dict):
            yield from _flat_keys(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}"
