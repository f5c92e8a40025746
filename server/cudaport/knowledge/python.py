"""`rules/python.toml` as typed lookup tables for the Python analyzer: PyTorch APIs and libraries with their
counterparts per target, environment variables, tensor methods, device and backend positions."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..model.findings import Difficulty
from ..model.records import field, record
from .ruleset import RuleDataError, RuleSet, Symbol, TargetMapping

UNSUPPORTED_RULE = "CP7090"
# Last components too common to find an API by (the analyzer then looks for the component before them).
_GENERIC_WORDS = frozenset(
    {"load", "forward", "step", "add", "get", "set", "check", "wait", "module", "code", "graph", "args", "kwargs"}
    | {"next", "prev", "type", "value", "name", "reset", "compile", "disable", "export", "save", "events", "mark"}
    | {"enable", "is_enabled", "dtype", "nodes", "enabled", "strategy", "verbose", "is_available", "is_built"}
)


@record(frozen=True, slots=True)
class Counterpart:
    replacement: str | None  # a pattern: `*` is the matched member; "=" the same name; None: no counterpart
    difficulty: Difficulty | None = None
    note: str = ""
    only: tuple[str, ...] = ()  # the target's hardware generations that have it (Atlas A2/A3)


@record(frozen=True, slots=True)
class ApiEntry:
    name: str  # qualified; a wildcard entry is stored under its prefix (`torch.cuda` for `torch.cuda.*`)
    wildcard: bool
    rule: str
    counterparts: Mapping[str, Counterpart]
    report: str = "all"  # all | import | use
    when: str = ""  # "" | cuda-sources

    def symbol(self, qualified: str, target: str) -> Symbol:
        """A rule-data symbol for one concrete name, so messages and difficulties come from the rules."""
        targets: dict[str, TargetMapping] = {}
        for name in self.counterparts:
            counterpart = self.counterparts.get(name)
            if counterpart is None:
                continue
            replacement = self.render(qualified, name) or ""
            targets[name] = TargetMapping(replacement, counterpart.difficulty, counterpart.note, only=counterpart.only)
        return Symbol(qualified, "api", self.rule, qualified.split(".", 1)[0], targets)

    def render(self, qualified: str, target: str) -> str | None:
        """The counterpart of `qualified` on `target`, or None when there is none."""
        counterpart = self.counterparts.get(target)
        if counterpart is None or counterpart.replacement is None:
            return None
        pattern = counterpart.replacement
        if pattern == "=":
            return qualified
        if "*" not in pattern:
            return pattern
        member = qualified[len(self.name) + 1 :] if self.wildcard else qualified.rsplit(".", 1)[-1]
        return pattern.replace("*", member)


@record(frozen=True, slots=True)
class EnvEntry:
    name: str  # exact, or a prefix when `prefix`
    prefix: bool
    counterparts: Mapping[str, Counterpart]
    value_checks: Mapping[str, str] = field(default_factory=dict)  # target -> check of a literal value
    rule: str = "CP7030"

    def replacement(self, name: str, target: str) -> str | None:
        """The target's name for the variable `name` (TORCH_NCCL_X -> TORCH_CNCL_X for a prefix entry)."""
        counterpart = self.counterparts.get(target)
        if counterpart is None or not counterpart.replacement:
            return None
        replacement = name if counterpart.replacement == "=" else counterpart.replacement
        if self.prefix and replacement.endswith("*"):
            replacement = replacement[:-1] + name[len(self.name) :]
        return replacement


@record(frozen=True, slots=True)
class CommandEntry:
    """An NVIDIA command-line tool a Python program may run."""

    name: str
    rule: str
    counterparts: Mapping[str, Counterpart]

    def symbol(self) -> Symbol:
        targets = {t: TargetMapping(c.replacement or "", c.difficulty, c.note) for t, c in self.counterparts.items()}
        return Symbol(self.name, "command", self.rule, "nvidia", targets)


@record(frozen=True, slots=True)
class OptionEntry:
    """A keyword argument value of a call that only means something with CUDA."""

    call: str  # qualified
    keyword: str
    value: str
    rule: str
    counterparts: Mapping[str, Counterpart]


@record(frozen=True, slots=True)
class MethodEntry:
    name: str
    called: bool
    rule: str
    counterparts: Mapping[str, Counterpart]


@record(frozen=True, slots=True)
class TargetFacts:
    device: str
    backend: str
    module: str = ""  # the package to import (torch_npu); "" = nothing to import
    import_roots: Mapping[str, str] = field(default_factory=dict)
    like: str = ""  # a target whose counterparts this one renames where it names none itself (musa after mlu)
    renames: tuple[tuple[str, str], ...] = ()  # words of `like`'s counterparts -> this target's
    unsupported: bool = False  # the `[unsupported]` lists (Ascend's) apply
    extension_note: str = ""  # why another extension class given CUDA sources does not build for it

    @property
    def keeps_cuda(self) -> bool:
        """PyTorch for this target keeps torch.cuda and the "cuda" device type (ROCm, MACA, CoreX)."""
        return self.device == "cuda"

    def rename(self, text: str) -> str:
        for old, new in self.renames:
            text = text.replace(old, new)
        return text

    def import_path(self, dotted: str) -> str:
        """A module path as an import statement must spell it (submodules through the package)."""
        for prefix, replacement in self.import_roots.items():
            if dotted.startswith(prefix):
                return replacement + dotted[len(prefix) :]
        return dotted


@record(frozen=True, slots=True)
class Positions:
    """Where a string is a device type or a backend name."""

    keywords: frozenset[str]
    first_argument: frozenset[str]
    second_argument: frozenset[str]
    methods: frozenset[str]
    name_words: tuple[str, ...]
    returns: frozenset[str] = frozenset()
    names: frozenset[str] = frozenset()  # whole names that hold one too (`dev`)
    functions: frozenset[str] = frozenset()  # callables of any module (or methods) whose first argument is one
    tables: frozenset[str] = frozenset()  # device types whose keys make a dict a device table
    any_call: bool = False  # the exact value is one as an argument of any call ...
    not_in: frozenset[str] = frozenset()  # ... but these

    def names_value(self, name: str) -> bool:
        lowered = name.lower()
        return lowered in self.names or any(word in lowered for word in self.name_words)


@record
class PythonKnowledge:
    targets: dict[str, TargetFacts]
    exact: dict[str, ApiEntry]
    wildcards: dict[str, ApiEntry]
    env_exact: dict[str, EnvEntry]
    env_prefixes: list[EnvEntry]
    methods: dict[str, MethodEntry]
    device: Positions
    backend: Positions
    device_types: frozenset[str]
    backend_names: frozenset[str]
    unsupported: frozenset[str]  # qualified names the `unsupported_targets` lack (Ascend's list)
    unsupported_targets: frozenset[str]
    unsupported_methods: frozenset[str]
    unsupported_advice: dict[str, str]
    words: frozenset[str]  # identifiers worth a look in every file
    unsupported_words: frozenset[str]  # ... and for npu
    unsupported_owners: frozenset[str] = frozenset()  # npu: classes with unsupported members (FSDP)
    commands: dict[str, CommandEntry] = field(default_factory=dict)  # program name -> entry
    command_calls: frozenset[str] = frozenset()  # qualified callables that start a program
    options: dict[tuple[str, str, str], OptionEntry] = field(default_factory=dict)  # (call, keyword, value)
    option_calls: frozenset[str] = frozenset()  # the calls those options belong to
    option_words: frozenset[str] = frozenset()  # their last components (`compile`), which a chain must end with
    flag_keywords: frozenset[str] = frozenset()  # keyword arguments whose strings are compiler/linker flags
    requirement_keywords: frozenset[str] = frozenset()  # ... whose strings are requirements (install_requires)
    _matches: dict[tuple[str, ...], tuple[ApiEntry, int] | None] = field(default_factory=dict)

    def match(self, parts: list[str]) -> tuple[ApiEntry, int] | None:
        """The entry for the longest prefix of a qualified name, and how many components it covers."""
        key = tuple(parts)
        if key in self._matches:
            return self._matches[key]
        found = self._match(parts)
        if len(self._matches) < 65536:
            self._matches[key] = found
        return found

    def _match(self, parts: list[str]) -> tuple[ApiEntry, int] | None:
        best: tuple[ApiEntry, int] | None = None
        for size in range(len(parts), 0, -1):
            entry = self.exact.get(".".join(parts[:size]))
            if entry is not None:
                best = (entry, size)
                break
        for size in range(len(parts) - 1, 0, -1):
            entry = self.wildcards.get(".".join(parts[:size]))
            if entry is not None:
                if best is None or size + 1 > best[1]:
                    best = (entry, size + 1)
                break
        return best

    def env(self, name: str) -> EnvEntry | None:
        found = self.env_exact.get(name)
        if found is not None:
            return found
        for entry in self.env_prefixes:
            if name.startswith(entry.name) and len(name) > len(entry.name):
                return entry
        return None

    def is_unsupported(self, parts: list[str]) -> int:
        """How many components of `parts` name an API on the npu unsupported list (0: none)."""
        for size in range(len(parts), 1, -1):
            if ".".join(parts[:size]) in self.unsupported:
                return size
        return 0


def load_python_knowledge(ruleset: RuleSet) -> PythonKnowledge:
    table: Mapping[str, Any] = ruleset.tables.get("python") or {}
    where = "rules/python.toml"
    targets = _target_facts(table.get("target", {}), ruleset, where)

    def _counterparts(group: Mapping[str, Any], default_hip: str, where: str) -> dict[str, Counterpart]:
        return _target_counterparts(group, targets, default_hip == "=", where)

    exact: dict[str, ApiEntry] = {}
    wildcards: dict[str, ApiEntry] = {}
    for index, group in enumerate(table.get("api", [])):
        rule = str(group.get("rule", ""))
        if rule not in ruleset.rules:
            raise RuleDataError(f"{where}: api #{index + 1} names unknown rule {rule!r}")
        counterparts = _counterparts(group, default_hip="=", where=f"{where}: api #{index + 1}")
        for name in group.get("names", []):
            name = str(name)
            wildcard = name.endswith(".*")
            key = name[:-2] if wildcard else name
            entry = ApiEntry(
                key, wildcard, rule, counterparts, str(group.get("report", "all")), str(group.get("when", ""))
            )
            (wildcards if wildcard else exact).setdefault(key, entry)
    env_exact: dict[str, EnvEntry] = {}
    env_prefixes: list[EnvEntry] = []
    for index, group in enumerate(table.get("env", [])):
        counterparts = _counterparts(group, default_hip="=", where=f"{where}: env #{index + 1}")
        checks = {t: str(group[f"{t}-value"]) for t in targets if f"{t}-value" in group}
        rule = str(group.get("rule", "CP7030"))
        if rule not in ruleset.rules:
            raise RuleDataError(f"{where}: env #{index + 1} names unknown rule {rule!r}")
        for name in group.get("names", []):
            name = str(name)
            if name.endswith("*"):
                env_prefixes.append(EnvEntry(name[:-1], True, counterparts, checks, rule))
            else:
                env_exact[name] = EnvEntry(name, False, counterparts, checks, rule)
    env_prefixes.sort(key=lambda e: -len(e.name))
    methods = {}
    for index, raw in enumerate(table.get("method", [])):
        counterparts = _counterparts(raw, default_hip="=", where=f"{where}: method #{index + 1}")
        methods[str(raw["name"])] = MethodEntry(
            str(raw["name"]), bool(raw.get("called", True)), str(raw["rule"]), counterparts
        )
    commands: dict[str, CommandEntry] = {}
    for index, raw in enumerate(table.get("command", [])):
        where_command = f"{where}: command #{index + 1}"
        rule = str(raw.get("rule", "CP7060"))
        if rule not in ruleset.rules:
            raise RuleDataError(f"{where_command} names unknown rule {rule!r}")
        counterparts = _counterparts(raw, default_hip="", where=where_command)
        for name in raw.get("names", []):
            commands[str(name)] = CommandEntry(str(name), rule, counterparts)
    options: dict[tuple[str, str, str], OptionEntry] = {}
    for index, raw in enumerate(table.get("option", [])):
        where_option = f"{where}: option #{index + 1}"
        rule = str(raw.get("rule", ""))
        if rule not in ruleset.rules:
            raise RuleDataError(f"{where_option} names unknown rule {rule!r}")
        counterparts = _counterparts(raw, default_hip="", where=where_option)
        call, keyword = str(raw["call"]), str(raw["keyword"])
        for value in raw.get("values", []):
            options[(call, keyword, str(value))] = OptionEntry(call, keyword, str(value), rule, counterparts)
    unsupported_table = table.get("unsupported", {})
    unsupported = frozenset(str(n) for n in unsupported_table.get("names", []))
    knowledge = PythonKnowledge(
        targets=targets,
        exact=exact,
        wildcards=wildcards,
        env_exact=env_exact,
        env_prefixes=env_prefixes,
        methods=methods,
        device=_positions(table.get("device", {})),
        backend=_positions(table.get("backend", {})),
        device_types=frozenset(str(t) for t in table.get("device", {}).get("types", ["cuda"])),
        backend_names=frozenset(str(t) for t in table.get("backend", {}).get("values", ["nccl"])),
        unsupported=unsupported,
        unsupported_targets=frozenset(t for t, f in targets.items() if f.unsupported),
        unsupported_methods=frozenset(str(m) for m in unsupported_table.get("methods", [])),
        unsupported_advice={str(k): str(v) for k, v in unsupported_table.get("advice", {}).items()},
        words=frozenset(),
        unsupported_words=frozenset(),
        commands=commands,
        options=options,
        option_calls=frozenset(call for call, _, _ in options),
        option_words=frozenset(call.rsplit(".", 1)[-1] for call, _, _ in options),
        command_calls=frozenset(str(c) for c in table.get("commands", {}).get("calls", [])),
        flag_keywords=frozenset(str(k) for k in table.get("build", {}).get("flag-keywords", [])),
        requirement_keywords=frozenset(str(k) for k in table.get("build", {}).get("requirement-keywords", [])),
    )
    knowledge.words = frozenset(_words(list(exact) + list(wildcards))) | frozenset(methods) | frozenset(env_exact)
    knowledge.words |= frozenset(re.findall(r"[A-Za-z_]\w*", " ".join(commands)))  # nvidia-smi: `nvidia`, `smi`
    knowledge.words |= knowledge.option_words  # `compile`
    # Members of classes are found from the class's name (`FSDP.summon_full_params(...)` names its class; a
    # method called on an instance names none, and the distinctive methods are matched on their own). Members of
    # the everyday classes would only cost lookups.
    words: set[str] = set()
    owners: set[str] = set()
    for name in unsupported:
        parts = name.split(".")
        owner_at = next((i for i, part in enumerate(parts[:-1]) if part[:1].isupper()), None)
        if owner_at is None:
            words |= _words([name])
        elif parts[owner_at] not in _EVERYDAY_CLASSES:
            words.add(parts[owner_at])
            owners.add(".".join(parts[: owner_at + 1]))
    knowledge.unsupported_words = frozenset(words) | knowledge.unsupported_methods
    knowledge.unsupported_owners = frozenset(owners)
    return knowledge


def _target_facts(raw: Mapping[str, Any], ruleset: RuleSet, where: str) -> dict[str, TargetFacts]:
    """`[target.<name>]`: one table per declared target, none for an undeclared one."""
    unknown = sorted(set(raw) - set(ruleset.targets))
    if unknown:
        raise RuleDataError(f"{where}: [target.{unknown[0]}] is not a target of targets.toml")
    missing = [t for t in ruleset.targets if t not in raw]
    if missing:
        raise RuleDataError(f"{where}: no [target.{missing[0]}] (its device type, backend and module)")
    facts = {}
    for name, entry in raw.items():
        like = str(entry.get("like", ""))
        if like and like not in raw:
            raise RuleDataError(f"{where}: target.{name}.like names unknown target {like!r}")
        renames = entry.get("renames", {})
        facts[name] = TargetFacts(
            device=str(entry.get("device", "cuda")),
            backend=str(entry.get("backend", "nccl")),
            module=str(entry.get("module", "")),
            import_roots={str(k): str(v) for k, v in entry.get("import-roots", {}).items()},
            like=like,
            renames=tuple(sorted(((str(k), str(v)) for k, v in renames.items()), key=lambda kv: -len(kv[0]))),
            unsupported=bool(entry.get("unsupported", False)),
            extension_note=str(entry.get("extension-note", "")),
        )
    return facts


def _target_counterparts(
    group: Mapping[str, Any], targets: Mapping[str, TargetFacts], same_by_default: bool, where: str
) -> dict[str, Counterpart]:
    """Each target's counterpart in an entry: its own keys; else its `like` target's (renamed, without its notes);
    else, for PyTorch builds that keep torch.cuda, the same name where that is the entry's default."""
    out: dict[str, Counterpart] = {}
    for target, facts in targets.items():
        if not facts.like:
            out[target] = _own_counterpart(group, target, same_by_default and facts.keeps_cuda, where)
    for target, facts in targets.items():
        if not facts.like:
            continue
        if target in group or f"{target}-difficulty" in group:
            out[target] = _own_counterpart(group, target, False, where)
            continue
        base = out.get(facts.like) or _own_counterpart(group, facts.like, same_by_default, where)
        renamed = facts.rename(base.replacement) if base.replacement is not None else None
        if renamed is not None and renamed == base.replacement and renamed != "=" and facts.renames:
            renamed = None  # `like`'s own product (cnmon, NEUWARE_HOME): nothing says this target has it
        # `like`'s notes name its own products (BANG C, ROCm builds): they are not facts about this target
        out[target] = Counterpart(renamed, base.difficulty, "", base.only if facts.renames else ())
    return out


def _own_counterpart(group: Mapping[str, Any], target: str, same: bool, where: str) -> Counterpart:
    raw = group.get(target, "=" if same else "")
    level = group.get(f"{target}-difficulty")
    try:
        difficulty = Difficulty.parse(str(level)) if level else None
    except ValueError as exc:
        raise RuleDataError(f"{where}: {target}-difficulty: {exc}") from None
    only = tuple(str(g) for g in group.get(f"{target}-only", []))
    return Counterpart(str(raw) if raw else None, difficulty, str(group.get(f"{target}-note", "")), only)


def _positions(table: Mapping[str, Any]) -> Positions:
    return Positions(
        keywords=frozenset(str(k) for k in table.get("keywords", [])),
        first_argument=frozenset(str(k) for k in table.get("first-argument", [])),
        second_argument=frozenset(str(k) for k in table.get("second-argument", [])),
        methods=frozenset(str(k) for k in table.get("methods", [])),
        name_words=tuple(str(k).lower() for k in table.get("name-words", [])),
        returns=frozenset(str(k) for k in table.get("returns", [])),
        names=frozenset(str(k).lower() for k in table.get("names", [])),
        functions=frozenset(str(k) for k in table.get("functions", [])),
        tables=frozenset(str(k) for k in table.get("tables", [])),
        any_call=bool(table.get("any-call", False)),
        not_in=frozenset(str(k) for k in table.get("not-in", [])),
    )


_EVERYDAY_CLASSES = frozenset({"Tensor", "Module", "TypedStorage", "UntypedStorage"})
_DISTINCT = re.compile(r"cuda|nccl|nvtx|cudnn", re.IGNORECASE)


def _words(names: Iterable[str]) -> set[str]:
    """One identifier per qualified name that the code must spell to use it: the component that says CUDA, or
    the last one unless it is too common (then the one before)."""
    out: set[str] = set()
    for name in names:
        parts = name.split(".")
        distinct = [p for p in parts if _DISTINCT.search(p)]
        if distinct:
            out.add(distinct[-1])
            continue
        for part in reversed(parts):
            if part != "torch" and part not in _GENERIC_WORDS:
                out.add(part)
                break
    return out
