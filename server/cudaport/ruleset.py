"""Loads the rule data in `rules/` (and any extra rule files) into lookup tables for the analyzers.

Layout of the data:
- `targets.toml`  the targets (hip, npu, mlu, ...) and what marks code already written for each;
- `rules.toml`    one `[[rule]]` per code: difficulty per target, message templates, documentation;
- `symbols/*.csv` CUDA names (functions, types, enums, macros; a trailing `*` makes a prefix pattern);
- `headers.csv`   CUDA headers (a `*` is a glob); `namespaces.csv` C++ namespaces;
- `*.toml` tables used by single analyzers (PTX instructions, call rewrites, Python APIs).
"""

from __future__ import annotations

import csv
import dataclasses
import fnmatch
import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from . import tomlcompat
from .models import Difficulty


class RuleDataError(Exception):
    """Rule data that cannot be used; the message names the file and the entry."""


def bundled_rules_dir() -> Path:
    """`rules/` inside the wheel, or the checkout's `rules/` for an editable install."""
    packaged = resources.files("cudaport").joinpath("_rules")
    if packaged.is_dir():
        return Path(str(packaged))
    checkout = Path(__file__).resolve().parents[2] / "rules"
    if checkout.is_dir():
        return checkout
    raise RuleDataError("the bundled rule data (rules/) is missing from this installation")


@dataclass(frozen=True, slots=True)
class RuntimeInit:
    """An explicit initialisation call the target's runtime needs before its first use (ACL's `aclInit`)."""

    call: str
    triggers: tuple[str, ...]  # target function prefixes whose use needs it (`aclrt`)
    rule: str
    provided_by: tuple[str, ...] = ()  # include globs of frameworks that initialise it (torch_npu: `ATen/*`)


@dataclass(frozen=True, slots=True)
class Target:
    name: str
    label: str
    platform: str
    markers: re.Pattern[str]  # preprocessor names that select this target's code path
    shim_prefixes: tuple[str, ...]  # what a portability header maps CUDA names to
    runtime_include: str = ""  # the header that declares kernel builtins (nvcc includes CUDA's implicitly)
    lanes: int = 0  # threads per warp/wavefront; 0 = the target has no SIMT warps
    unsafe_renames: bool = True  # offer a `manual` counterpart as an unsafe rename
    init: RuntimeInit | None = None
    after_runtime: frozenset[str] = frozenset()  # target headers that only compile after `runtime_include`
    vector_operators: frozenset[str] = frozenset()  # operators the target's own float4, int2, ... define
    pointer_types: tuple[str, ...] = ()  # CUDA integer types that are pointers on the target (CUdeviceptr)
    aliases: tuple[str, ...] = ()  # other names users type for it (rocm, dtk; ascend; cambricon)


@dataclass(frozen=True, slots=True)
class RuleDocs:
    what: str
    why: str
    example: str
    fix: str


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    subject: str  # "CUDA runtime", "cuBLAS", ... used in messages
    summary: str
    languages: frozenset[str]
    difficulty: Mapping[str, Difficulty]  # target -> difficulty when the target has a counterpart
    unmapped: Mapping[str, Difficulty]  # target -> difficulty when it has none
    messages: Mapping[str, str]  # outcome -> template
    counterparts: Mapping[str, str]  # target -> what to use instead, in words (for rules without a name table)
    renames: bool  # whether a counterpart name is offered as a rewrite
    docs: RuleDocs
    versions: str = "CUDA"  # whose release numbers the deprecated/removed columns hold (cuDNN has its own)


REMOVED = "-"  # a target cell that says the target needs nothing in its place: the name is deleted


@dataclass(frozen=True, slots=True)
class TargetMapping:
    replacement: str  # "" = no counterpart; REMOVED = nothing is needed, the name goes
    difficulty: Difficulty | None  # None = the rule's default
    note: str = ""


@dataclass(frozen=True, slots=True)
class Symbol:
    name: str
    kind: str
    rule: str
    library: str
    targets: Mapping[str, TargetMapping]
    flags: frozenset[str] = frozenset()
    deprecated: str = ""
    removed: str = ""
    note: str = ""
    # The qualifiers the name counts under (`at::cuda`, "" = written without one); empty: any. The finding then
    # spans the qualified name, and a counterpart replaces all of it (`at::cuda::getCurrentCUDAStream` ->
    # `c10_npu::getCurrentNPUStream`).
    scopes: tuple[str, ...] = ()

    @property
    def generic(self) -> bool:
        """A plain name (`umin`, `texture`) that only counts in a CUDA position, never as any identifier."""
        return "generic" in self.flags

    @property
    def quiet(self) -> bool:
        """Known (standard C math on the device, say) but never worth a finding."""
        return "quiet" in self.flags


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a symbol means for one target."""

    difficulty: Difficulty
    replacement: str | None
    message: str
    rewrite: bool  # whether `replacement` may be offered as an edit


_TARGET_COLUMNS = ("hip", "npu", "mlu")
_GENERIC_MESSAGES = {
    "mapped": "{subject} {kind} `{symbol}` → `{replacement}` on {target}{note}",
    "manual": "{subject} {kind} `{symbol}`: {target} has `{replacement}`, but it needs a person to adapt{note}",
    "same": "{subject} {kind} `{symbol}` works unchanged on {target}{note}",
    "unmapped": "{subject} {kind} `{symbol}` has no {target} counterpart{note}",
    "removed": "{subject} {kind} `{symbol}` is not needed on {target}: it is removed{note}",
    "unmapped-counterpart": (
        "{subject} {kind} `{symbol}` has no {target} counterpart; the port needs {counterpart}{note}"
    ),
}
_KIND_WORDS = {
    "function": "function",
    "device_function": "device function",
    "type": "type",
    "enum_value": "enum value",
    "define": "macro",
    "header": "header",
    "namespace": "namespace",
    "pattern": "construct",
    "guard": "header macro",
    "member": "member",
}


@dataclass
class RuleSet:
    targets: dict[str, Target] = field(default_factory=dict)
    rules: dict[str, Rule] = field(default_factory=dict)
    symbols: dict[str, Symbol] = field(default_factory=dict)
    prefixes: list[Symbol] = field(default_factory=list)
    headers: dict[str, Symbol] = field(default_factory=dict)
    header_globs: list[Symbol] = field(default_factory=list)
    namespaces: dict[str, Symbol] = field(default_factory=dict)
    tables: dict[str, Any] = field(default_factory=dict)  # analyzer tables from the other *.toml files
    sources: list[Path] = field(default_factory=list)
    _header_cache: dict[str, Symbol | None] = field(default_factory=dict, repr=False)
    _outcome_cache: dict[tuple[int, str], Outcome] = field(default_factory=dict, repr=False)

    def target_names(self) -> dict[str, str]:
        """Every name a user may give for a target (its name and aliases, lower-case) -> the target's name."""
        names: dict[str, str] = {}
        for target in self.targets.values():
            for name in (target.name, *target.aliases):
                names[name.lower()] = target.name
        return names

    def resolve_target(self, name: str) -> str | None:
        """The target `name` stands for (case-insensitive, aliases accepted), or None."""
        return self.target_names().get(name.strip().lower())

    # ---- lookups -------------------------------------------------------------------------------------------
    def symbol(self, name: str) -> Symbol | None:
        found = self.symbols.get(name)
        if found is not None:
            return found
        for candidate in self.prefixes:
            if name.startswith(candidate.name) and len(name) > len(candidate.name):
                return _renamed(candidate, name)  # messages and fixes name what the code says, not the pattern
        return None

    @functools.cached_property
    def mappable(self) -> Mapping[str, Symbol]:
        """The CUDA names a portability header can map: symbols and namespaces (`namespace cub = hipcub;`)."""
        return {**self.namespaces, **self.symbols}

    @functools.cached_property
    def prefix_pattern(self) -> re.Pattern[str] | None:
        if not self.prefixes:
            return None
        return re.compile("|".join(re.escape(p.name) for p in self.prefixes))

    def header(self, path: str) -> Symbol | None:
        try:
            return self._header_cache[path]
        except KeyError:
            pass
        found = self.headers.get(path)
        if found is None:
            found = next((c for c in self.header_globs if fnmatch.fnmatchcase(path, c.name)), None)
        self._header_cache[path] = found
        return found

    def rule(self, code: str) -> Rule:
        return self.rules[code]

    def target(self, name: str) -> Target:
        try:
            return self.targets[name]
        except KeyError:
            known = ", ".join(sorted(self.targets))
            raise ValueError(f"unknown target {name!r} (known: {known})") from None

    # ---- meaning of a symbol for a target ------------------------------------------------------------------
    def outcome(self, symbol: Symbol, target: str) -> Outcome:
        """Cached for the symbols of the tables: they are immutable and the rule data does not change after loading
        (names matched by a prefix or a header glob are built per use and are not cached)."""
        key = (id(symbol), target)
        cached = self._outcome_cache.get(key)
        if cached is not None:
            return cached
        outcome = self._outcome(symbol, target)
        if (
            self.symbols.get(symbol.name) is symbol
            or self.namespaces.get(symbol.name) is symbol
            or (self.headers.get(symbol.name) is symbol)
        ):
            self._outcome_cache[key] = outcome
        return outcome

    def _outcome(self, symbol: Symbol, target: str) -> Outcome:
        rule = self.rules[symbol.rule]
        mapping = symbol.targets.get(target, TargetMapping("", None))
        replacement = mapping.replacement
        if replacement == REMOVED:
            difficulty = _given(mapping.difficulty, rule.difficulty.get(target, Difficulty.MECHANICAL))
            message = self.format_message(rule, "removed", target, symbol, "", mapping.note)
            return Outcome(difficulty, "", message, rule.renames and difficulty <= Difficulty.MECHANICAL)
        if replacement and replacement == symbol.name:
            difficulty = _given(mapping.difficulty, Difficulty.PORTABLE)
            kind = "same"
        elif replacement:
            difficulty = _given(mapping.difficulty, rule.difficulty.get(target, Difficulty.MANUAL))
            kind = "mapped" if difficulty <= Difficulty.MECHANICAL else "manual"
        else:
            difficulty = _given(mapping.difficulty, rule.unmapped.get(target, Difficulty.BLOCKER))
            kind = "unmapped"
        rewrite = bool(replacement) and replacement != symbol.name and rule.renames
        if rewrite and difficulty >= Difficulty.MANUAL and not self._unsafe_renames(target):
            rewrite = False  # the counterpart differs in signature: a rename alone would not compile
        if kind == "manual" and not rule.renames and "manual" not in rule.messages:
            kind = "unmapped"  # a counterpart name that is never offered is not worth naming, unless the rule says
        message = self.format_message(rule, kind, target, symbol, replacement, mapping.note)
        return Outcome(difficulty, replacement if rewrite else None, message, rewrite)

    def _unsafe_renames(self, target: str) -> bool:
        known = self.targets.get(target)
        return known.unsafe_renames if known is not None else True

    def format_message(
        self, rule: Rule, kind: str, target: str, symbol: Symbol, replacement: str, extra_note: str = ""
    ) -> str:
        notes = [n for n in (extra_note, symbol.note, _lifecycle(symbol, rule.versions)) if n]
        counterpart = rule.counterparts.get(target, "")
        template = self.message_template(rule, kind, target)
        label = self.targets[target].label if target in self.targets else target
        values = {
            "subject": rule.subject,
            "kind": _KIND_WORDS.get(symbol.kind, symbol.kind),
            "symbol": symbol.name,
            "replacement": replacement,
            "target": label,
            "counterpart": counterpart,
            "note": "".join(f"; {n}" for n in notes),
        }
        try:
            return template.format(**values)
        except (KeyError, IndexError) as exc:  # a bad template in extra rule data must not crash analysis
            return f"{rule.subject} `{symbol.name}` ({rule.code}; bad message template: {exc})"

    @staticmethod
    def message_template(rule: Rule, kind: str, target: str) -> str:
        """The rule's template for this target (`message.<target>.<kind>`), its own (`message.<kind>`), or the
        generic one; a generic `unmapped` message names the rule's counterpart for the target when it has one."""
        template = rule.messages.get(f"{target}.{kind}") or rule.messages.get(kind)
        if template:
            return template
        if kind == "unmapped" and rule.counterparts.get(target):
            return _GENERIC_MESSAGES["unmapped-counterpart"]
        return _GENERIC_MESSAGES.get(kind, _GENERIC_MESSAGES["unmapped"])


def _lifecycle(symbol: Symbol, product: str) -> str:
    if symbol.removed:
        return f"removed in {product} {symbol.removed}"
    if symbol.deprecated:
        return f"deprecated since {product} {symbol.deprecated}"
    return ""


# ---- loading ---------------------------------------------------------------------------------------------------
def load_ruleset(extra: Iterable[Path] = ()) -> RuleSet:
    """The bundled rules plus `extra` files (`.toml` rules/symbols or `.csv` symbol tables), cached."""
    return _load_cached(tuple(Path(p).resolve() for p in extra))


@functools.lru_cache(maxsize=8)
def _load_cached(extra: tuple[Path, ...]) -> RuleSet:
    base = bundled_rules_dir()
    ruleset = RuleSet()
    _load_targets(ruleset, base / "targets.toml")
    _load_rules_toml(ruleset, base / "rules.toml")
    for csv_path in sorted((base / "symbols").glob("*.csv")):
        _load_symbol_csv(ruleset, csv_path, ruleset.symbols)
    _load_symbol_csv(ruleset, base / "headers.csv", ruleset.headers, key="header")
    _load_symbol_csv(ruleset, base / "namespaces.csv", ruleset.namespaces, key="namespace")
    for table in sorted(base.glob("*.toml")):
        if table.name not in ("targets.toml", "rules.toml"):
            ruleset.tables[table.stem] = _read_toml(table)
    for path in extra:
        _load_extra(ruleset, path)
    _finish(ruleset)
    return ruleset


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return dict(tomlcompat.loads(path.read_text(encoding="utf-8")))
    except OSError as exc:
        raise RuleDataError(f"{path}: cannot read rule file: {exc.strerror or exc}") from exc
    except (tomlcompat.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise RuleDataError(f"{path}: invalid TOML: {exc}") from exc


def _load_targets(ruleset: RuleSet, path: Path) -> None:
    data = _read_toml(path)
    for name, entry in data.get("target", {}).items():
        where = f"{path}: target.{name}"
        markers = entry.get("markers", [])
        try:
            pattern = re.compile(r"\b(?:" + "|".join(markers) + r")\b") if markers else re.compile(r"(?!)")
        except re.error as exc:
            raise RuleDataError(f"{where}.markers: bad pattern: {exc}") from exc
        init = entry.get("init")
        if init is not None and not (isinstance(init, dict) and isinstance(init.get("call"), str)):
            raise RuleDataError(f"{where}.init: a table with 'call', 'triggers' and 'rule'")
        ruleset.targets[name] = Target(
            name=name,
            label=_req_str(entry, "label", where),
            platform=str(entry.get("platform", "")),
            markers=pattern,
            shim_prefixes=tuple(entry.get("shim-prefixes", [])),
            runtime_include=str(entry.get("runtime-include", "")),
            lanes=int(entry.get("lanes", 0)),
            unsafe_renames=bool(entry.get("unsafe-renames", True)),
            init=RuntimeInit(
                str(init["call"]),
                tuple(init.get("triggers", [])),
                str(init.get("rule", "")),
                tuple(str(p) for p in init.get("provided-by", [])),
            )
            if init is not None
            else None,
            after_runtime=frozenset(str(h) for h in entry.get("after-runtime", [])),
            vector_operators=frozenset(str(o) for o in entry.get("vector-operators", [])),
            pointer_types=tuple(str(t) for t in entry.get("pointer-types", [])),
            aliases=tuple(str(a) for a in entry.get("aliases", [])),
        )
        taken = {n for t in ruleset.targets.values() if t.name != name for n in (t.name, *t.aliases)}
        clash = sorted({a.lower() for a in (name, *ruleset.targets[name].aliases)} & {n.lower() for n in taken})
        if clash:
            raise RuleDataError(f"{where}.aliases: {', '.join(clash)} already names another target")
    ruleset.sources.append(path)


def _load_rules_toml(ruleset: RuleSet, path: Path) -> None:
    data = _read_toml(path)
    for index, entry in enumerate(data.get("rule", [])):
        rule = _parse_rule(entry, f"{path}: rule #{index + 1}", ruleset)
        if rule.code in ruleset.rules:
            raise RuleDataError(f"{path}: rule {rule.code} is defined twice")
        ruleset.rules[rule.code] = rule
    ruleset.sources.append(path)


_CODE = re.compile(r"^CP\d{4}$")


def _parse_rule(entry: Mapping[str, Any], where: str, ruleset: RuleSet) -> Rule:
    code = _req_str(entry, "code", where)
    if not _CODE.match(code):
        raise RuleDataError(f"{where}: code {code!r} must look like CP1234")
    where = f"{where} ({code})"
    docs = entry.get("docs", {})
    return Rule(
        code=code,
        name=_req_str(entry, "name", where),
        subject=str(entry.get("subject", "")),
        summary=_req_str(entry, "summary", where),
        languages=frozenset(entry.get("languages", ["c"])),
        difficulty=_difficulties(entry.get("difficulty", {}), f"{where}.difficulty", ruleset),
        unmapped=_difficulties(entry.get("unmapped", {}), f"{where}.unmapped", ruleset),
        messages=_messages(entry.get("message", {}), f"{where}.message", ruleset),
        counterparts={str(k): str(v) for k, v in entry.get("counterpart", {}).items()},
        renames=bool(entry.get("renames", True)),
        versions=str(entry.get("versions", "CUDA")),
        docs=RuleDocs(
            what=str(docs.get("what", "")).strip(),
            why=str(docs.get("why", "")).strip(),
            example=str(docs.get("example", "")).strip("\n"),
            fix=str(docs.get("fix", "")).strip(),
        ),
    )


def _messages(table: Mapping[str, Any], where: str, ruleset: RuleSet) -> dict[str, str]:
    """`message.<outcome>` templates, and per-target ones from `[rule.message.<target>]` as `<target>.<outcome>`."""
    out: dict[str, str] = {}
    for key, value in table.items():
        if isinstance(value, dict):
            if key not in ruleset.targets and key not in _TARGET_COLUMNS:
                raise RuleDataError(f"{where}.{key}: unknown target")
            out.update({f"{key}.{kind}": str(template) for kind, template in value.items()})
        else:
            out[str(key)] = str(value)
    return out


def _difficulties(table: Mapping[str, Any], where: str, ruleset: RuleSet) -> dict[str, Difficulty]:
    out: dict[str, Difficulty] = {}
    for target, value in table.items():
        try:
            out[target] = Difficulty.parse(str(value))
        except ValueError as exc:
            raise RuleDataError(f"{where}.{target}: {exc}") from None
    return out


def _req_str(entry: Mapping[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value:
        raise RuleDataError(f"{where}: missing or empty string '{key}'")
    return value


def _load_symbol_csv(ruleset: RuleSet, path: Path, table: dict[str, Symbol], key: str = "name") -> None:
    try:
        handle = path.open(encoding="utf-8", newline="")
    except OSError as exc:
        raise RuleDataError(f"{path}: cannot read symbol table: {exc.strerror or exc}") from exc
    with handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames is None or key not in reader.fieldnames or "rule" not in reader.fieldnames:
            raise RuleDataError(f"{path}: a symbol table needs the columns '{key}' and 'rule'")
        for line, row in enumerate(reader, start=2):
            _add_symbol(ruleset, table, _row_symbol(row, key, path.stem, f"{path}:{line}"), key)
    ruleset.sources.append(path)


def _row_symbol(row: Mapping[str, str | None], key: str, library: str, where: str) -> Symbol:
    def cell(name: str) -> str:
        return (row.get(name) or "").strip()

    name = cell(key)
    if not name:
        raise RuleDataError(f"{where}: empty '{key}'")
    targets: dict[str, TargetMapping] = {}
    for target in _TARGET_COLUMNS:
        replacement = cell(target)
        level = cell(f"{target}_difficulty")
        note = cell(f"{target}_note")
        if replacement or level or note:
            try:
                difficulty = Difficulty.parse(level) if level else None
            except ValueError as exc:
                raise RuleDataError(f"{where}: {target}_difficulty: {exc}") from None
            targets[target] = TargetMapping(replacement, difficulty, note)
    flags = frozenset(f for f in cell("flags").split("|") if f)
    return Symbol(
        name=name,
        kind=cell("kind") or ("header" if key == "header" else "namespace" if key == "namespace" else "name"),
        rule=cell("rule"),
        library=cell("library") or library,
        targets=targets,
        flags=flags,
        deprecated=cell("deprecated"),
        removed=cell("removed"),
        note=cell("note"),
        scopes=tuple(scope.strip() for scope in (row.get("scopes") or "").split("|")) if cell("scopes") else (),
    )


def _add_symbol(ruleset: RuleSet, table: dict[str, Symbol], symbol: Symbol, key: str) -> None:
    if key == "name" and symbol.name.endswith("*"):
        ruleset.prefixes.append(_renamed(symbol, symbol.name[:-1]))
    elif key == "header" and any(ch in symbol.name for ch in "*?["):
        ruleset.header_globs.append(symbol)
    else:
        table.setdefault(symbol.name, symbol)  # the first table that names a symbol owns it


def _renamed(symbol: Symbol, name: str) -> Symbol:
    return dataclasses.replace(symbol, name=name)


def _load_extra(ruleset: RuleSet, path: Path) -> None:
    if path.suffix == ".csv":
        added: dict[str, Symbol] = {}
        _load_symbol_csv(ruleset, path, added)
        ruleset.symbols.update(added)  # extra tables override the bundled entries
        return
    data = _read_toml(path)
    for index, entry in enumerate(data.get("rule", [])):
        rule = _parse_rule(entry, f"{path}: rule #{index + 1}", ruleset)
        ruleset.rules[rule.code] = rule
    for index, entry in enumerate(data.get("symbol", [])):
        where = f"{path}: symbol #{index + 1}"
        row = {k.replace("-", "_"): str(v) for k, v in entry.items()}
        symbol = _row_symbol(row, "name", path.stem, where)
        if symbol.name.endswith("*"):
            ruleset.prefixes.append(_renamed(symbol, symbol.name[:-1]))
        else:
            ruleset.symbols[symbol.name] = symbol
    unknown = set(data) - {"rule", "symbol"}
    if unknown:
        raise RuleDataError(f"{path}: unknown top-level key(s): {', '.join(sorted(unknown))}")
    ruleset.sources.append(path)


def _finish(ruleset: RuleSet) -> None:
    """Check that every symbol names a known rule, so a typo fails loudly at load time."""
    tables: list[Iterable[Symbol]] = [
        ruleset.symbols.values(),
        ruleset.prefixes,
        ruleset.headers.values(),
        ruleset.header_globs,
        ruleset.namespaces.values(),
    ]
    for table in tables:
        for symbol in table:
            if symbol.rule not in ruleset.rules:
                raise RuleDataError(f"symbol {symbol.name!r} ({symbol.library}) names unknown rule {symbol.rule!r}")
            for target in symbol.targets:
                if target not in ruleset.targets and target not in _TARGET_COLUMNS:
                    raise RuleDataError(f"symbol {symbol.name!r} names unknown target {target!r}")
    # longest prefixes first, so `nvtxRange` wins over `nvtx`
    ruleset.prefixes.sort(key=lambda s: -len(s.name))


def _given(difficulty: Difficulty | None, default: Difficulty) -> Difficulty:
    """The data's difficulty when it gives one: `portable` is 0, so `or` would drop it."""
    return difficulty if difficulty is not None else default
