"""Loads the rule data in `rules/` (and any extra rule files) into lookup tables for the analyzers.

Layout of the data:
- `targets.toml`  the targets (hip, npu, mlu, ...) and what marks code already written for each;
- `rules.toml`    one `[[rule]]` per code: difficulty per target, message templates, documentation;
- `symbols/*.csv` CUDA names (functions, types, enums, macros; a trailing `*` makes a prefix pattern);
- `headers.csv`   CUDA headers (a `*` is a glob); `namespaces.csv` C++ namespaces;
- `*.toml` tables used by single analyzers (PTX instructions, call rewrites, Python APIs).
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections import ChainMap
from collections.abc import Iterable, Mapping, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from .. import i18n
from ..i18n import N_, t
from ..model import records
from ..model.findings import Difficulty
from ..model.records import field, record
from ..resources.paths import RuleDataError as RuleDataError  # the rule data's error, raised here too
from ..resources.paths import bundled_rules_dir
from . import tomlcompat

if TYPE_CHECKING:  # the operator data is loaded with the rule set only when a Python file needs it (rulecache)
    from .operators import OperatorData


@record(frozen=True, slots=True)
class RuntimeInit:
    """An explicit initialisation call the target's runtime needs before its first use (ACL's `aclInit`)."""

    call: str
    triggers: tuple[str, ...]  # target function prefixes whose use needs it (`aclrt`)
    rule: str
    provided_by: tuple[str, ...] = ()  # include globs of frameworks that initialise it (torch_npu: `ATen/*`)


@record(frozen=True, slots=True)
class VersionScheme:
    """Whose release numbers a target's version data holds, and the newest one it knows."""

    product: str  # "ROCm": messages say "needs ROCm ≥ 6.2"
    newest: str  # the version assumed when the user names none ("" for generations: none assumed)
    oldest: str = ""  # the oldest release still in use: a counterpart added after it says since when
    generations: tuple[str, ...] = ()  # named hardware generations instead of numbered releases (npu@950DT)

    def generation(self, given: str) -> str | None:
        """The generation `given` names (case-insensitive), or None."""
        return next((g for g in self.generations if g.lower() == given.lower()), None)


@record(frozen=True, slots=True)
class Derivation:
    """Counterparts a target derives from the CUDA names, for names its own data does not map: a runtime that
    renames CUDA's API one to one (`cudaMalloc` -> `mcMalloc`), or one that keeps the CUDA names (`renames` empty)."""

    libraries: frozenset[str]  # the symbol tables it covers (`cuda_runtime`, the file's stem); empty: all
    renames: tuple[tuple[str, str], ...]  # name prefix -> replacement, the longest that matches
    source: str = ""  # rename this target's counterpart instead of the CUDA name (MACA follows HIP's names)
    keep: bool = False  # a name no prefix matches, and that `source` keeps too, stays as it is (device functions)
    difficulty: Difficulty | None = None
    note: str = ""

    def counterpart(self, symbol: Symbol) -> TargetMapping | None:
        name = self._name(symbol)
        if name is None:
            return None
        # Where the source target needs a person despite the same name (64-bit masks), so does this one.
        source = symbol.targets.get(self.source) if self.source else None
        difficulty = self.difficulty if self.difficulty is not None else source.difficulty if source else None
        return TargetMapping(name, difficulty, self.note)

    def _name(self, symbol: Symbol) -> str | None:
        if self.libraries and symbol.library not in self.libraries:
            return None
        name = symbol.name
        if self.source:
            mapping = symbol.targets.get(self.source)
            if mapping is None or not mapping.replacement or mapping.replacement == REMOVED:
                return None  # what the source target lacks is no common API
            name = mapping.replacement
        for prefix, replacement in self.renames:
            if name.startswith(prefix):
                return replacement + name[len(prefix) :]
        if self.keep:
            return name if name == symbol.name else None  # kept only where the source keeps CUDA's name too
        return None if self.renames else name


@record(frozen=True, slots=True)
class Target:
    name: str
    label: str
    platform: str
    markers: re.Pattern[str]  # preprocessor names that select this target's code path
    shim_prefixes: tuple[str, ...]  # what a portability header maps CUDA names to
    runtime_include: str = ""  # the header that declares kernel builtins (nvcc includes CUDA's implicitly)
    lanes: int = 0  # threads per warp/wavefront; 0 = the target has no SIMT warps
    lanes_note: str = ""  # where `lanes` holds (MUSA: 128 on S80/S4000, 32 on S5000)
    warp_word: str = N_("warp")  # what messages call a warp ("wavefront" on AMD)
    unsafe_renames: bool = True  # offer a `manual` counterpart as an unsafe rename
    init: RuntimeInit | None = None
    after_runtime: frozenset[str] = frozenset()  # target headers that only compile after `runtime_include`
    vector_operators: frozenset[str] = frozenset()  # operators the target's own float4, int2, ... define
    pointer_types: tuple[str, ...] = ()  # CUDA integer types that are pointers on the target (CUdeviceptr)
    aliases: tuple[str, ...] = ()  # other names users type for it (rocm, dtk; ascend; cambricon)
    kernels: str = "rewrite"  # CUDA kernels on the target: "unchanged", "rename" (HIP, MUSA) or "rewrite" (Ascend C)
    like: str = ""  # a target whose rule difficulties this one takes where its own data gives none
    like_rules: Mapping[str, str] = field(default_factory=dict)  # rule code prefix -> such a target (CP7: Python)

    def like_for(self, code: str) -> str:
        """The target whose difficulty rule `code` borrows: the longest matching prefix's, else `like`."""
        best = max((p for p in self.like_rules if code.startswith(p)), key=len, default=None)
        return self.like_rules[best] if best is not None else self.like

    versions: VersionScheme | None = None  # release numbers the data rates APIs against (`hip@6.2`)
    derive: tuple[Derivation, ...] = ()  # counterparts worked out from CUDA names instead of a column of its own
    # The #if condition that selects this target in a generated portability header (`fix --style dual-stack`);
    # empty: the target's port is no rename of CUDA names, so no header is generated for it.
    dual_stack: str = ""


OTHER_AREA = "other"  # the report's area for a rule no [[area]] lists (a house rule that names none)


@record(frozen=True, slots=True)
class Area:
    """A part of the project's CUDA inventory as the migration guides take it (framework API, runtime API,
    libraries, hand-written kernels, build and environment, binaries)."""

    name: str
    about: str
    rules: tuple[str, ...]


@record(frozen=True, slots=True)
class RuleDocs:
    what: str
    why: str
    example: str
    fix: str


@record(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    subject: str  # "CUDA runtime", "cuBLAS", ... used in messages
    summary: str
    difficulty: Mapping[str, Difficulty]  # target -> difficulty when the target has a counterpart
    unmapped: Mapping[str, Difficulty]  # target -> difficulty when it has none
    messages: Mapping[str, str]  # outcome -> template
    counterparts: Mapping[str, str]  # target -> what to use instead, in words (for rules without a name table)
    renames: bool  # whether a counterpart name is offered as a rewrite
    docs: RuleDocs
    versions: str = "CUDA"  # whose release numbers the deprecated/removed columns hold (cuDNN has its own)
    url: str = ""  # its documentation; "" = the rule file's `docs-url` for its code
    area: str = OTHER_AREA  # the part of the inventory the report puts it in (rules.toml's [[area]])
    family: str = ""  # what the report calls the rule's library or API family, where `subject` is too short


DEFAULT_KEY = "default"  # `difficulty.default` in a rule: for every target it does not name
REMOVED = "-"  # a target cell that says the target needs nothing in its place: the name is deleted


@record(frozen=True, slots=True)
class TargetMapping:
    replacement: str  # "" = no counterpart; REMOVED = nothing is needed, the name goes
    difficulty: Difficulty | None  # None = the rule's default
    note: str = ""
    added: str = ""  # the target release that added the counterpart (rules/versions/<target>.csv)
    deprecated: str = ""
    removed: str = ""
    condition: str = ""  # a macro the build must define for the counterpart (HIP_ENABLE_WARP_SYNC_BUILTINS)
    only: tuple[str, ...] = ()  # the generations that have it (Atlas A2/A3, not Ascend 950DT); empty: all
    before: TargetMapping | None = None  # the counterpart in releases older than `added` (hip_bfloat16)


@record(frozen=True, slots=True)
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
    def within(self) -> tuple[str, ...]:
        """Words one of which the file must name for the symbol to count (`within:cudaDeviceProp`): a field name as
        plain as `uuid` is CUDA's only where its struct is in sight."""
        return tuple(f[len("within:") :] for f in self.flags if f.startswith("within:"))

    @property
    def quiet(self) -> bool:
        """Known (standard C math on the device, say) but never worth a finding."""
        return "quiet" in self.flags


@record(frozen=True, slots=True)
class Outcome:
    """What a symbol means for one target."""

    difficulty: Difficulty
    replacement: str | None
    message: str
    rewrite: bool  # whether `replacement` may be offered as an edit


# Templates are English here and in the rule data (the rule cache is language-independent); a message is written in
# the active language when it is made: the template through t(), and the words that fill it (subject, kind, target,
# notes) through t() too, so that a translation orders them itself.
_GENERIC_MESSAGES = {
    "mapped": N_("{subject} {kind} `{symbol}` → `{replacement}` on {target}{note}"),
    "manual": N_("{subject} {kind} `{symbol}`: {target} has `{replacement}`, but it needs a person to adapt{note}"),
    "same": N_("{subject} {kind} `{symbol}` works unchanged on {target}{note}"),
    "unmapped": N_("{subject} {kind} `{symbol}` has no {target} counterpart{note}"),
    "removed": N_("{subject} {kind} `{symbol}` is not needed on {target}: it is removed{note}"),
    "unmapped-counterpart": N_(
        "{subject} {kind} `{symbol}` has no {target} counterpart; the port needs {counterpart}{note}"
    ),
    "too-old": N_(
        "{subject} {kind} `{symbol}` needs {product} ≥ {added} (`{replacement}`), and the build assumes {product} "
        "{version}: keep the CUDA path for older releases or require a newer one{note}"
    ),
    "not-on-generation": N_(
        "{subject} {kind} `{symbol}`: `{replacement}` is only on {product} {only}, not on the {version} the build "
        "assumes{note}"
    ),
    "version-removed": N_(
        "{subject} {kind} `{symbol}`: `{replacement}` was removed in {product} {removed}, and the build assumes "
        "{product} {version}{note}"
    ),
}
_KIND_WORDS = {
    "function": N_("function"),
    "device_function": N_("device function"),
    "type": N_("type"),
    "enum_value": N_("enum value"),
    "define": N_("macro"),
    "header": N_("header"),
    "namespace": N_("namespace"),
    "pattern": N_("construct"),
    "guard": N_("header macro"),
    "member": N_("member"),
}
# The kinds the analyzers give their own symbols, shown as they are in English (the inventory's come from
# rules/inventory.toml, translated as rule data).
_OTHER_KINDS: tuple[str, ...] = (
    N_("kernel"),
    N_("launch"),
    N_("api"),
    N_("option"),
    N_("method"),
    N_("variable"),
    N_("extension"),
)
_OTHER_KINDS += (N_("command"),)


@record
class RuleSet:
    targets: dict[str, Target] = field(default_factory=dict)
    rules: dict[str, Rule] = field(default_factory=dict)
    # CUDA names -> symbol; from the compiled cache (rulecache), a table that decodes each symbol on first use
    symbols: MutableMapping[str, Symbol] = field(default_factory=dict)
    prefixes: list[Symbol] = field(default_factory=list)
    headers: dict[str, Symbol] = field(default_factory=dict)
    header_globs: list[Symbol] = field(default_factory=list)
    namespaces: dict[str, Symbol] = field(default_factory=dict)
    tables: dict[str, Any] = field(default_factory=dict)  # analyzer tables from the other *.toml files
    # rules/operators/ (the `operators` property): what each target's PyTorch plugin runs natively; the compiled
    # cache keeps it pickled apart, decoded when a Python file first asks (a C++ check never loads its classes)
    _operators: OperatorData | None = field(default=None, repr=False)
    _operators_pickled: bytes = field(default=b"", repr=False)
    sources: list[Path] = field(default_factory=list)
    versions: Mapping[str, str] = field(default_factory=dict)  # target -> the release the user builds with
    docs_url: str = ""  # rules.toml's `docs-url`: where a rule's documentation is, `{code}` standing for it
    areas: tuple[Area, ...] = ()  # the report's inventory areas, in the migration guides' order
    generic_names: frozenset[str] = frozenset()  # the symbols flagged `generic`, known without decoding them
    _header_cache: dict[str, Symbol | None] = field(default_factory=dict, repr=False)
    _outcome_cache: dict[tuple[int, str, str], Outcome] = field(default_factory=dict, repr=False)

    @property
    def operators(self) -> OperatorData | None:
        if self._operators_pickled:
            import pickle

            self._operators = pickle.loads(self._operators_pickled)
            self._operators_pickled = b""
        return self._operators

    @operators.setter
    def operators(self, data: OperatorData | None) -> None:
        self._operators = data
        self._operators_pickled = b""

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

    def unknown_target(self, name: str) -> str:
        """What a name that is no target gets told, in check, fix, report, the configuration and the editor
        alike: the nearest name or alias, and the targets."""
        import difflib

        names = self.target_names()
        given = name.strip()
        close = difflib.get_close_matches(given.lower(), list(names), n=1, cutoff=0.6)
        known = ", ".join(self.targets)
        if not close:
            return t("unknown target {name} (known: {known}, or an alias)", name=repr(given), known=known)
        target = names[close[0]]
        meant = repr(target) if close[0] == target else t("{name} ({alias})", name=repr(target), alias=close[0])
        return t(
            "unknown target {name}; did you mean {meant}? (known: {known}, or an alias)",
            name=repr(given),
            meant=meant,
            known=known,
        )

    def parse_target(self, spec: str) -> TargetSpec:
        """`hip@6.2` -> ("hip", "6.2"); `rocm` -> ("hip", ""). A ValueError says what is wrong; a release past the
        newest the rule data knows is rated as that newest one, with a warning."""
        name, _, version = spec.strip().partition("@")
        canonical = self.resolve_target(name)
        if canonical is None:
            raise ValueError(self.unknown_target(name))
        version = version.strip()
        if not version:
            return TargetSpec(canonical, "")
        scheme = self.targets[canonical].versions
        plugin = self._plugin_spec(canonical, version, spec)
        if plugin is not None and (scheme is None or scheme.generation(version) is None):
            return plugin
        if scheme is None:
            raise ValueError(
                t(
                    "target {name} has no version data: give it without '@{version}'",
                    name=repr(canonical),
                    version=version,
                )
            )
        if scheme.generations:
            generation = scheme.generation(version)
            if generation is None:
                known = ", ".join(scheme.generations)
                raise ValueError(
                    t(
                        "{spec}: {product} generations are {known}",
                        spec=repr(spec.strip()),
                        product=scheme.product,
                        known=known,
                    )
                )
            return TargetSpec(canonical, generation)
        key = version_key(version)
        if key is None:
            raise ValueError(
                t(
                    "{spec}: a version is numbers separated by dots, like {example}",
                    spec=repr(spec.strip()),
                    example=scheme.newest,
                )
            )
        newest = version_key(scheme.newest)
        if newest is not None and key > newest:
            warning = t(
                "{spec}: the rule data knows {product} releases up to {newest}; rating for {newest}",
                spec=repr(spec.strip()),
                product=scheme.product,
                newest=scheme.newest,
            )
            return TargetSpec(canonical, scheme.newest, warning)
        return TargetSpec(canonical, version)

    def _plugin_spec(self, canonical: str, version: str, spec: str) -> TargetSpec | None:
        """`npu@2.14`: a release of the target's PyTorch plugin (torch_npu), whose operator list the findings use;
        one the data lacks is rated as the nearest release it has, with a warning. None: no plugin data, or no
        release number."""
        data = self.operators
        releases = data.releases(canonical) if data is not None else ()
        key = version_key(version)
        if not releases or key is None or data is None:
            return None
        from .operators import plugin_release

        found = plugin_release(releases, version)
        if found is not None:
            return TargetSpec(canonical, found)
        below = [r for r in releases if (version_key(r) or ()) < key]
        nearest = below[-1] if below else releases[0]
        coverage = data.coverage(canonical, nearest)
        package = coverage.plugin.package if coverage is not None and coverage.plugin is not None else canonical
        warning = t(
            "{spec}: the rule data knows {package} releases {known}; rating for {nearest}",
            spec=repr(spec.strip()),
            package=package,
            known=", ".join(releases),
            nearest=nearest,
        )
        return TargetSpec(canonical, nearest, warning)

    def prologue(self) -> dict[str, Any]:
        """The facts a run may need before it knows it will analyse anything, kept apart in the rule cache
        (prologue_fact): the file kinds (rules/files.toml) and the PyTorch release that brought torch.accelerator
        (rules/python.toml's dual-stack table)."""
        python = self.tables.get("python") or {}
        since = python.get("dual-stack", {}).get("accelerator-since", "") if isinstance(python, dict) else ""
        return {"files": self.tables.get("files"), "accelerator-since": str(since)}

    def pinned(self, versions: Mapping[str, str]) -> RuleSet:
        """This rule data rating each target against the release in `versions` (target -> version); the
        tables are shared, the outcome caches are not."""
        wanted = {t: v for t, v in versions.items() if v}
        if wanted == dict(self.versions):
            return self
        return records.replace(self, versions=wanted, _header_cache={}, _outcome_cache={})

    def version_of(self, target: str) -> str:
        """The release of `target` the findings assume: the user's, else the newest the data knows ("" if none)."""
        given = self.versions.get(target)
        if given:
            return given
        known = self.targets.get(target)
        return known.versions.newest if known is not None and known.versions is not None else ""

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
        return ChainMap(self.symbols, self.namespaces)  # symbols first, as {**namespaces, **symbols} had it

    def without_symbols(self) -> RuleSet:
        """This rule data without its symbol table and caches (the rule cache stores the symbols apart)."""
        return records.replace(self, symbols={}, _header_cache={}, _outcome_cache={})

    @functools.cached_property
    def kernel_keepers(self) -> tuple[str, ...]:
        """The targets whose compilers take CUDA kernels (as they are, or with renamed APIs)."""
        return tuple(t.name for t in self.targets.values() if t.kernels != "rewrite")

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

    def rule_url(self, code: str) -> str:
        """Where rule `code` is documented: its own `url`, else the rule data's `docs-url` ("" when neither)."""
        rule = self.rules.get(code)
        if rule is not None and rule.url:
            return rule.url
        return self.docs_url.format(code=code.lower()) if self.docs_url else ""

    def target(self, name: str) -> Target:
        try:
            return self.targets[name]
        except KeyError:
            known = ", ".join(sorted(self.targets))
            raise ValueError(t("unknown target {name} (known: {known})", name=repr(name), known=known)) from None

    # ---- meaning of a symbol for a target ------------------------------------------------------------------
    def outcome(self, symbol: Symbol, target: str) -> Outcome:
        """Cached for the symbols of the tables: they are immutable and the rule data does not change after loading
        (names matched by a prefix or a header glob are built per use and are not cached)."""
        key = (id(symbol), target, i18n.language())  # the message is written in the language of the moment
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

    def mapping(self, symbol: Symbol, target: str) -> TargetMapping:
        """The symbol's counterpart on `target` in the release assumed (an older one when the newest came later)."""
        mapping = symbol.targets.get(target, TargetMapping("", None))
        while mapping.before is not None and self._release_check(mapping, target) == "too-old":
            mapping = mapping.before
        return mapping

    def _outcome(self, symbol: Symbol, target: str) -> Outcome:
        rule = self.rules[symbol.rule]
        mapping = self.mapping(symbol, target)
        replacement = mapping.replacement
        if replacement == REMOVED:
            difficulty = _given(mapping.difficulty, rule.difficulty.get(target, Difficulty.MECHANICAL))
            message = self.format_message(rule, "removed", target, symbol, "", mapping.note)
            return Outcome(difficulty, "", message, rule.renames and difficulty <= Difficulty.MECHANICAL)
        if replacement and replacement == symbol.name:
            difficulty = _given(mapping.difficulty, Difficulty.PORTABLE)
            kind = "same" if difficulty <= Difficulty.MECHANICAL else _same_but_manual(rule, target)
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
        lifecycle = self._release_check(mapping, target) if replacement else None
        if lifecycle is not None:
            # The counterpart exists, but not in the release the user builds with.
            message = self.format_message(rule, lifecycle, target, symbol, replacement, mapping.note, mapping)
            return Outcome(max(difficulty, Difficulty.MANUAL), None, message, False)
        message = self.format_message(rule, kind, target, symbol, replacement, mapping.note, mapping)
        return Outcome(difficulty, replacement if rewrite else None, message, rewrite)

    def _release_check(self, mapping: TargetMapping, target: str) -> str | None:
        """ "too-old" when the target's counterpart came after the release assumed, "version-removed" when it went
        before it; None when it is there."""
        if mapping.only:
            generation = self.version_of(target)
            return "not-on-generation" if generation and generation not in mapping.only else None
        if not (mapping.added or mapping.removed):
            return None
        version = version_key(self.version_of(target))
        if version is None:
            return None
        added, removed = version_key(mapping.added), version_key(mapping.removed)
        if added is not None and version < added:
            return "too-old"
        if removed is not None and version >= removed:
            return "version-removed"
        return None

    def _unsafe_renames(self, target: str) -> bool:
        known = self.targets.get(target)
        return known.unsafe_renames if known is not None else True

    def format_message(
        self,
        rule: Rule,
        kind: str,
        target: str,
        symbol: Symbol,
        replacement: str,
        extra_note: str = "",
        mapping: TargetMapping | None = None,
    ) -> str:
        known = self.targets.get(target)
        product = known.versions.product if known is not None and known.versions is not None else ""
        version = self.version_of(target)
        notes = [note_text(n) for n in (extra_note, symbol.note) if n]
        notes += [n for n in (_lifecycle(symbol, rule.versions),) if n]
        if mapping is not None and kind not in _RELEASE_KINDS:
            notes.extend(_target_lifecycle(mapping, known.versions if known is not None else None, version))
        template = self.message_template(rule, kind, target)
        label = t(known.label) if known is not None else target
        # A rule's words for what replaces the construct; a target the rule says nothing about gets honest ones.
        counterpart = (
            t(rule.counterparts[target])
            if rule.counterparts.get(target)
            else t("an implementation of its own (cudaport knows no {target} counterpart)", target=label)
        )
        values = {
            "subject": t(rule.subject),
            "kind": t(_KIND_WORDS.get(symbol.kind, symbol.kind)),
            "symbol": symbol.name,
            "replacement": replacement,
            "target": label,
            "counterpart": counterpart,
            "note": "".join(t("; {note}", note=n) for n in notes),
            "lanes": str(known.lanes) if known is not None and known.lanes else "no",  # never said: warps have lanes
            "lanes_note": t(known.lanes_note) if known is not None and known.lanes_note else "",
            "product": product,
            "version": version,
            "added": _short(mapping.added) if mapping is not None else "",
            "removed": _short(mapping.removed) if mapping is not None else "",
            "only": "/".join(mapping.only) if mapping is not None else "",
        }
        try:
            return tidy(t(template).format(**values))
        except (KeyError, IndexError, ValueError) as exc:  # a bad template in extra rule data must not crash analysis
            return t(
                "{subject} `{symbol}` ({code}; bad message template: {error})",
                subject=values["subject"],
                symbol=symbol.name,
                code=rule.code,
                error=exc,
            )

    @staticmethod
    def message_template(rule: Rule, kind: str, target: str) -> str:
        """The rule's template for this target (`message.<target>.<kind>`), its own (`message.<kind>`), or the
        generic one; a generic `unmapped` message names the rule's counterpart for the target when it has one."""
        if kind in _RELEASE_KINDS:
            return rule.messages.get(kind) or _GENERIC_MESSAGES[kind]
        template = rule.messages.get(f"{target}.{kind}") or rule.messages.get(kind)
        if template:
            return template
        if kind == "unmapped" and rule.counterparts.get(target):
            return _GENERIC_MESSAGES["unmapped-counterpart"]
        return _GENERIC_MESSAGES.get(kind, _GENERIC_MESSAGES["unmapped"])


def _same_but_manual(rule: Rule, target: str) -> str:
    """The template for a counterpart of the same name that still needs a person (64-bit masks): the rule's own
    words for it (`same`, else `unmapped`), which say why, before the generic `manual`."""
    for kind in ("same", "unmapped"):
        if f"{target}.{kind}" in rule.messages or kind in rule.messages:
            return kind
    return "manual"


_RELEASE_KINDS = ("too-old", "version-removed", "not-on-generation")


class TargetSpec(NamedTuple):
    """A target as the user named it, resolved: its name, the release to rate against ("" for the newest), and
    what the user should be told about it (a release past the data, rated as the newest it knows)."""

    name: str
    version: str
    warning: str | None = None


def version_key(version: str) -> tuple[int, ...] | None:
    """A release number as a sortable key: `6.2` and `6.2.0` compare equal; anything but dotted numbers is None."""
    parts = version.strip().split(".") if version else []
    if not parts or not all(p.isdigit() for p in parts):
        return None
    numbers = [int(p) for p in parts]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


def _target_lifecycle(mapping: TargetMapping, scheme: VersionScheme | None, version: str) -> list[str]:
    """Notes on a counterpart that is there in the release assumed: since when (when that is after the oldest
    release in use), deprecated, behind a macro."""
    notes = []
    product = scheme.product if scheme is not None else ""
    added, oldest = version_key(mapping.added), version_key(scheme.oldest) if scheme is not None else None
    if added is not None and product and (oldest is None or added > oldest):
        notes.append(t("needs {product} ≥ {version}", product=product, version=_short(mapping.added)))
    if mapping.deprecated and product:
        key, deprecated = version_key(version), version_key(mapping.deprecated)
        if key is not None and deprecated is not None and key >= deprecated:
            notes.append(t("deprecated since {product} {version}", product=product, version=_short(mapping.deprecated)))
    if mapping.condition:
        notes.append(t("the build must define {condition}", condition=mapping.condition))
    return notes


def _short(version: str) -> str:
    """`6.2.0` -> `6.2`: how people name a ROCm release."""
    return version[:-2] if version.endswith(".0") and version.count(".") == 2 else version


def _lifecycle(symbol: Symbol, product: str) -> str:
    if symbol.removed:
        return t("removed in {product} {version}", product=product, version=symbol.removed)
    if symbol.deprecated:
        return t("deprecated since {product} {version}", product=product, version=symbol.deprecated)
    return ""


def note_text(note: str) -> str:
    """A note of the rule data in the active language; one that joins notes of two tables with "; " (a counterpart
    table adding to a symbol table's note) is translated a part at a time."""
    shown = t(note)
    if shown is not note or "; " not in note:
        return shown
    return t("; ").join(t(part) for part in note.split("; "))


_CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"


@functools.lru_cache(maxsize=1)
def _cjk_gap() -> re.Pattern[str]:  # compiled when a message is first tidied in Chinese (a millisecond at import)
    return re.compile(f"(?<=[{_CJK}]) (?=[{_CJK}])")


def tidy(message: str) -> str:
    """A message as its language writes it: a template's space between two words (`{subject} {kind}`) goes where
    both are Chinese ("CUDA 运行时 函数" -> "CUDA 运行时函数"); English is left as it is."""
    return _cjk_gap().sub("", message) if i18n.language() != i18n.ENGLISH else message


# ---- loading ---------------------------------------------------------------------------------------------------
def load_ruleset(extra: Iterable[Path] = ()) -> RuleSet:
    """The bundled rules plus `extra` files (`.toml` rules/symbols or `.csv` symbol tables), cached in the
    process and, compiled, on disk (see rulecache)."""
    return _load_cached(tuple(Path(p).resolve() for p in extra))


def prologue_fact(name: str, extra: Iterable[Path] = ()) -> Any:
    """One of RuleSet.prologue's facts of the rule data (with `extra` files), from the rule cache's prologue when
    the rule set is not loaded yet (file selection needs the file kinds, the results cache's checks the PyTorch
    release of torch.accelerator; a run answered by the results cache needs nothing more), else from the rule set."""
    key = tuple(Path(p).resolve() for p in extra)
    if key not in _LOADED:
        facts = _prologue(key)
        if facts is not None and name in facts:
            return facts[name]
    return _load_cached(key).prologue()[name]


@functools.lru_cache(maxsize=8)
def _prologue(extra: tuple[Path, ...]) -> dict[str, Any] | None:
    from . import rulecache

    return rulecache.load_prologue(bundled_rules_dir(), extra, _cached_modules())


_LOADED: set[tuple[Path, ...]] = set()  # the rule sets this process has loaded


def _cached_modules() -> tuple[Path, ...]:
    """The source files of the classes the rule cache pickles (operators.py named, not imported: a warm start of a
    C++ check never loads it)."""
    from ..model import findings, records

    here = Path(__file__).resolve()
    model = (Path(findings.__file__).resolve(), Path(records.__file__).resolve())  # records: how they pickle
    return (here, *model, here.with_name("operators.py"))


@functools.lru_cache(maxsize=8)
def _load_cached(extra: tuple[Path, ...]) -> RuleSet:
    from . import rulecache

    base = bundled_rules_dir()
    modules = _cached_modules()
    _LOADED.add(extra)
    cached = rulecache.load(base, extra, RuleSet, modules)
    if cached is not None:
        _check_required(cached)
        return cached
    built_from = rulecache.fingerprint(base, extra, modules)
    ruleset = build_ruleset(base, extra)
    rulecache.store(base, extra, ruleset, built_from)
    return ruleset


def build_ruleset(base: Path, extra: tuple[Path, ...] = ()) -> RuleSet:
    """The rule data read and checked from its files (what the cache holds compiled)."""
    ruleset = RuleSet()
    _load_targets(ruleset, _read_toml(base / "targets.toml"), base / "targets.toml")
    extra_tomls = {path: _read_toml(path) for path in extra if path.suffix != ".csv"}
    for path, data in extra_tomls.items():  # an extra file may declare a whole target: columns need it first
        _load_targets(ruleset, data, path)
    _load_rules_toml(ruleset, base / "rules.toml")
    for csv_path in sorted((base / "symbols").glob("*.csv")):
        _load_symbol_csv(ruleset, csv_path, ruleset.symbols)
    _load_symbol_csv(ruleset, base / "headers.csv", ruleset.headers, key="header")
    _load_symbol_csv(ruleset, base / "namespaces.csv", ruleset.namespaces, key="namespace")
    for table in sorted(base.glob("*.toml")):
        if table.name not in ("targets.toml", "rules.toml"):
            ruleset.tables[table.stem] = _read_toml(table)
    from .operators import build_operator_data

    ruleset.operators = build_operator_data(base / "operators")
    for csv_path in sorted((base / "counterparts").glob("*.csv")):
        _merge_counterparts(ruleset, csv_path)
    for path in extra:
        _load_extra(ruleset, path, extra_tomls.get(path))
    for csv_path in sorted((base / "versions").glob("*.csv")):
        _load_versions(ruleset, csv_path)
    _finish(ruleset)
    return ruleset


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return dict(tomlcompat.loads(path.read_text(encoding="utf-8")))
    except OSError as exc:
        raise RuleDataError(f"{path}: cannot read rule file: {exc.strerror or exc}") from exc
    except (tomlcompat.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise RuleDataError(f"{path}: invalid TOML: {exc}") from exc


_TARGET_KEYS = {
    "label", "platform", "markers", "shim-prefixes", "runtime-include", "lanes", "unsafe-renames", "init",
    "after-runtime", "vector-operators", "pointer-types", "aliases", "kernels", "like", "versions", "derive",
    "lanes-note", "warp-word", "dual-stack",
}  # fmt: skip
_KERNEL_ROUTES = ("unchanged", "rename", "rewrite")


def _load_targets(ruleset: RuleSet, data: Mapping[str, Any], path: Path) -> None:
    targets = data.get("target", {})
    if not isinstance(targets, dict):
        raise RuleDataError(f"{path}: [target.<name>] tables expected")
    for name, entry in targets.items():
        where = f"{path}: target.{name}"
        if not re.fullmatch(r"[a-z][a-z0-9_-]*", name):
            raise RuleDataError(f"{where}: a target name is lower-case letters, digits, '-' and '_'")
        if name in ruleset.targets:
            raise RuleDataError(f"{where}: target {name!r} is declared twice")
        unknown = sorted(set(entry) - _TARGET_KEYS)
        if unknown:
            raise RuleDataError(
                f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(_TARGET_KEYS))})"
            )
        markers = entry.get("markers", [])
        try:
            pattern = re.compile(r"\b(?:" + "|".join(markers) + r")\b") if markers else re.compile(r"(?!)")
        except re.error as exc:
            raise RuleDataError(f"{where}.markers: bad pattern: {exc}") from exc
        init = entry.get("init")
        if init is not None and not (isinstance(init, dict) and isinstance(init.get("call"), str)):
            raise RuleDataError(f"{where}.init: a table with 'call', 'triggers' and 'rule'")
        kernels = str(entry.get("kernels", "rewrite"))
        if kernels not in _KERNEL_ROUTES:
            raise RuleDataError(f"{where}.kernels: one of {', '.join(_KERNEL_ROUTES)}, not {kernels!r}")
        ruleset.targets[name] = Target(
            name=name,
            label=_req_str(entry, "label", where),
            platform=str(entry.get("platform", "")),
            markers=pattern,
            shim_prefixes=tuple(entry.get("shim-prefixes", [])),
            runtime_include=str(entry.get("runtime-include", "")),
            lanes=_count(entry.get("lanes", 0), f"{where}.lanes"),
            lanes_note=str(entry.get("lanes-note", "")),
            warp_word=str(entry.get("warp-word", N_("warp"))),
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
            kernels=kernels,
            like=str(like) if isinstance(like := entry.get("like", ""), str) else str(like.get(DEFAULT_KEY, "")),
            like_rules={str(k): str(v) for k, v in like.items() if k != DEFAULT_KEY} if isinstance(like, dict) else {},
            versions=_version_scheme(entry.get("versions"), f"{where}.versions"),
            derive=tuple(_derivation(raw, f"{where}.derive #{i + 1}") for i, raw in enumerate(entry.get("derive", []))),
            dual_stack=_dual_stack_condition(entry.get("dual-stack"), f"{where}.dual-stack"),
        )
        taken = {n for t in ruleset.targets.values() if t.name != name for n in (t.name, *t.aliases)}
        clash = sorted({a.lower() for a in (name, *ruleset.targets[name].aliases)} & {n.lower() for n in taken})
        if clash:
            raise RuleDataError(f"{where}.aliases: {', '.join(clash)} already names another target")
    for name in targets:  # the targets a target borrows from: bundled ones, or declared in the same file
        target = ruleset.targets[name]
        for like in (target.like, *target.like_rules.values()):
            if like and like not in ruleset.targets:
                raise RuleDataError(f"{path}: target.{name}.like names unknown target {like!r}")
        for derivation in target.derive:
            if derivation.source and derivation.source not in ruleset.targets:
                raise RuleDataError(f"{path}: target.{name}.derive names unknown target {derivation.source!r}")
    if targets:
        ruleset.sources.append(path)


def _dual_stack_condition(raw: Any, where: str) -> str:
    """`{ condition = "defined(__HIP_PLATFORM_AMD__) || defined(USE_ROCM)" }`."""
    if raw is None:
        return ""
    condition = raw.get("condition") if isinstance(raw, dict) else None
    if not isinstance(condition, str) or not condition.strip() or "\n" in condition:
        raise RuleDataError(f"{where}: a table with 'condition', the one-line #if test that selects the target")
    return condition.strip()


def _count(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise RuleDataError(f"{where}: a whole number (threads per warp; 0 or absent: no warps), not {value!r}")
    return value


def _version_scheme(raw: Any, where: str) -> VersionScheme | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("product"), str):
        raise RuleDataError(f"{where}: a table with 'product' and 'newest' (or 'generations')")
    generations = raw.get("generations", [])
    if not isinstance(generations, list) or not all(isinstance(g, str) and g for g in generations):
        raise RuleDataError(f"{where}.generations: a list of names (A2, A3, ...)")
    if generations:
        return VersionScheme(str(raw["product"]), "", "", tuple(generations))
    if not isinstance(raw.get("newest"), str):
        raise RuleDataError(f"{where}: a table with 'product' and 'newest' (or 'generations')")
    for key in ("newest", "oldest"):
        if key in raw and version_key(str(raw[key])) is None:
            raise RuleDataError(f"{where}.{key}: {raw[key]!r} is not a version like 6.2")
    return VersionScheme(str(raw["product"]), str(raw["newest"]), str(raw.get("oldest", "")))


def _derivation(raw: Any, where: str) -> Derivation:
    if not isinstance(raw, dict):
        raise RuleDataError(f"{where}: a table with 'libraries', 'renames', 'difficulty' and 'note'")
    renames = raw.get("renames", {})
    if not isinstance(renames, dict) or not all(isinstance(v, str) for v in renames.values()):
        raise RuleDataError(f"{where}.renames: a table of CUDA name prefix = replacement")
    level = raw.get("difficulty")
    try:
        difficulty = Difficulty.parse(str(level)) if level else None
    except ValueError as exc:
        raise RuleDataError(f"{where}.difficulty: {exc}") from None
    return Derivation(
        libraries=frozenset(str(lib) for lib in raw.get("libraries", [])),
        renames=tuple(sorted(((str(k), str(v)) for k, v in renames.items()), key=lambda kv: -len(kv[0]))),
        source=str(raw.get("from", "")),
        keep=bool(raw.get("keep", False)),
        difficulty=difficulty,
        note=str(raw.get("note", "")),
    )


def _load_rules_toml(ruleset: RuleSet, path: Path) -> None:
    data = _read_toml(path)
    ruleset.docs_url = str(data.get("docs-url", ""))
    for index, entry in enumerate(data.get("rule", [])):
        rule = _parse_rule(entry, f"{path}: rule #{index + 1}", ruleset)
        if rule.code in ruleset.rules:
            raise RuleDataError(f"{path}: rule {rule.code} is defined twice")
        ruleset.rules[rule.code] = rule
    ruleset.areas = _areas(data.get("area", []), ruleset, path)
    ruleset.sources.append(path)


def _areas(raw: list[Any], ruleset: RuleSet, path: Path) -> tuple[Area, ...]:
    """`[[area]]`: every rule in exactly one area (a rule's own `area = ...` wins); rules get their area's name."""
    areas = []
    owner: dict[str, str] = {}
    for index, entry in enumerate(raw):
        where = f"{path}: area #{index + 1}"
        name = _req_str(entry, "name", where)
        codes = tuple(str(code) for code in entry.get("rules", []))
        for code in codes:
            if code not in ruleset.rules:
                raise RuleDataError(f"{where} ({name}) names unknown rule {code!r}")
            if code in owner:
                raise RuleDataError(f"{where}: rule {code} is already in area {owner[code]!r}")
            owner[code] = name
        areas.append(Area(name, str(entry.get("about", "")), codes))
    for code, rule in list(ruleset.rules.items()):
        if rule.area == OTHER_AREA and code in owner:
            ruleset.rules[code] = records.replace(rule, area=owner[code])
    return tuple(areas)


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
        difficulty=_difficulties(entry.get("difficulty", {}), f"{where}.difficulty", ruleset),
        unmapped=_difficulties(entry.get("unmapped", {}), f"{where}.unmapped", ruleset),
        messages=_messages(entry.get("message", {}), f"{where}.message", ruleset),
        counterparts={str(k): str(v) for k, v in entry.get("counterpart", {}).items()},
        renames=bool(entry.get("renames", True)),
        versions=str(entry.get("versions", "CUDA")),
        url=str(entry.get("url", "")),
        area=str(entry.get("area", OTHER_AREA)),
        family=str(entry.get("family", "")),
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
            if key not in ruleset.targets:
                raise RuleDataError(f"{where}.{key}: unknown target (declared: {', '.join(ruleset.targets)})")
            out.update({f"{key}.{kind}": str(template) for kind, template in value.items()})
        else:
            out[str(key)] = str(value)
    return out


def _difficulties(table: Mapping[str, Any], where: str, ruleset: RuleSet) -> dict[str, Difficulty]:
    out: dict[str, Difficulty] = {}
    for target, value in table.items():
        if target not in ruleset.targets and target != DEFAULT_KEY:
            raise RuleDataError(f"{where}.{target}: unknown target (declared: {', '.join(ruleset.targets)})")
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


_SYMBOL_COLUMNS = {"name", "header", "namespace", "kind", "rule", "flags", "library", "deprecated", "removed"}
_SYMBOL_COLUMNS |= {"note", "scopes", "origin"}
_TARGET_SUFFIXES = ("", "_difficulty", "_note")


def _check_columns(ruleset: RuleSet, columns: Iterable[str], where: str) -> None:
    """Every column is a symbol field or `<target>`, `<target>_difficulty`, `<target>_note` of a declared target."""
    for column in columns:
        if column in _SYMBOL_COLUMNS:
            continue
        if any(column.endswith(s) and column[: len(column) - len(s)] in ruleset.targets for s in _TARGET_SUFFIXES if s):
            continue
        if column in ruleset.targets:
            continue
        raise RuleDataError(
            f"{where}: unknown column {column!r} (a symbol field, or <target>[_difficulty|_note] of a declared "
            f"target: {', '.join(ruleset.targets)})"
        )


def _open_csv(path: Path) -> Any:
    try:
        return path.open(encoding="utf-8", newline="")
    except OSError as exc:
        raise RuleDataError(f"{path}: cannot read symbol table: {exc.strerror or exc}") from exc


def _load_symbol_csv(ruleset: RuleSet, path: Path, table: MutableMapping[str, Symbol], key: str = "name") -> None:
    import csv  # only when the rule data is built (the cache holds it compiled)

    with _open_csv(path) as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames is None or key not in reader.fieldnames or "rule" not in reader.fieldnames:
            raise RuleDataError(f"{path}: a symbol table needs the columns '{key}' and 'rule'")
        _check_columns(ruleset, reader.fieldnames, str(path))
        targets = tuple(ruleset.targets)
        try:
            for line, row in enumerate(reader, start=2):
                _add_symbol(ruleset, table, _row_symbol(row, key, path.stem, f"{path}:{line}", targets), key)
        except (csv.Error, UnicodeDecodeError) as exc:
            raise RuleDataError(f"{path}: not a readable CSV file: {exc}") from exc
    ruleset.sources.append(path)


def _target_mappings(cell: Any, targets: Iterable[str], where: str) -> dict[str, TargetMapping]:
    out: dict[str, TargetMapping] = {}
    for target in targets:
        replacement = cell(target)
        level = cell(f"{target}_difficulty")
        note = cell(f"{target}_note")
        if replacement or level or note:
            try:
                difficulty = Difficulty.parse(level) if level else None
            except ValueError as exc:
                raise RuleDataError(f"{where}: {target}_difficulty: {exc}") from None
            out[target] = TargetMapping(replacement, difficulty, note)
    return out


def _row_symbol(row: Mapping[str, str | None], key: str, library: str, where: str, targets: Iterable[str]) -> Symbol:
    def cell(name: str) -> str:
        return (row.get(name) or "").strip()

    name = cell(key)
    if not name:
        raise RuleDataError(f"{where}: empty '{key}'")
    flags = frozenset(f for f in cell("flags").split("|") if f)
    return Symbol(
        name=name,
        kind=cell("kind") or ("header" if key == "header" else "namespace" if key == "namespace" else "name"),
        rule=cell("rule"),
        library=cell("library") or library,
        targets=_target_mappings(cell, targets, where),
        flags=flags,
        deprecated=cell("deprecated"),
        removed=cell("removed"),
        note=cell("note"),
        scopes=tuple(scope.strip() for scope in (row.get("scopes") or "").split("|")) if cell("scopes") else (),
    )


def _merge_counterparts(ruleset: RuleSet, path: Path) -> None:
    """A table of one target's counterparts for names the other tables declare (`name,musa,musa_note`): it adds
    the target's columns to those symbols, headers (key column `header`) or namespaces (`namespace`)."""
    import csv  # only when the rule data is built (the cache holds it compiled)

    with _open_csv(path) as handle:
        reader = csv.DictReader(handle)
        columns = reader.fieldnames or []
        key = next((k for k in ("name", "header", "namespace") if k in columns), None)
        if key is None:
            raise RuleDataError(f"{path}: a counterpart table needs a 'name', 'header' or 'namespace' column")
        _check_columns(ruleset, columns, str(path))
        table = {"name": ruleset.symbols, "header": ruleset.headers, "namespace": ruleset.namespaces}[key]
        patterns = {p.name + "*": p for p in ruleset.prefixes} if key == "name" else {}
        patterns.update({g.name: g for g in ruleset.header_globs} if key == "header" else {})
        targets = tuple(t for t in ruleset.targets if t in columns)
        try:
            for line, row in enumerate(reader, start=2):
                where = f"{path}:{line}"
                name = (row.get(key) or "").strip()
                symbol = table.get(name) or patterns.get(name)
                if symbol is None:
                    raise RuleDataError(
                        f"{where}: {name!r} is in no symbol table (give it a 'rule' in a table of its own)"
                    )
                mappings = _target_mappings(lambda c, row=row: (row.get(c) or "").strip(), targets, where)
                _mutable(symbol.targets).update(mappings)
        except (csv.Error, UnicodeDecodeError) as exc:
            raise RuleDataError(f"{path}: not a readable CSV file: {exc}") from exc
    ruleset.sources.append(path)


_VERSION_COLUMNS = (
    "name",
    "counterpart",
    "difficulty",
    "added",
    "deprecated",
    "removed",
    "condition",
    "note",
    "source",
)


def _load_versions(ruleset: RuleSet, path: Path) -> None:
    """`versions/<target>.csv`: the release of the target that added (deprecated, removed) each CUDA name's
    counterpart. A row with a `counterpart` also gives one to a name the other tables leave without."""
    target = path.stem
    if target not in ruleset.targets:
        raise RuleDataError(f"{path}: a version table is named after a declared target ({', '.join(ruleset.targets)})")
    if ruleset.targets[target].versions is None:
        raise RuleDataError(f"{path}: target {target!r} declares no 'versions' scheme in targets.toml")
    import csv  # only when the rule data is built (the cache holds it compiled)

    with _open_csv(path) as handle:
        reader = csv.DictReader(handle)
        unknown = sorted(set(reader.fieldnames or []) - set(_VERSION_COLUMNS))
        if "name" not in (reader.fieldnames or []) or unknown:
            raise RuleDataError(f"{path}: columns are {', '.join(_VERSION_COLUMNS)} (unknown: {', '.join(unknown)})")
        for line, row in enumerate(reader, start=2):
            where = f"{path}:{line}"
            cells = {c: (row.get(c) or "").strip() for c in _VERSION_COLUMNS}
            for column in ("added", "deprecated", "removed"):
                if cells[column] and version_key(cells[column]) is None:
                    raise RuleDataError(f"{where}: {column} {cells[column]!r} is not a version like 6.2")
            symbol = ruleset.symbols.get(cells["name"]) or ruleset.headers.get(cells["name"])
            if symbol is None:
                raise RuleDataError(f"{where}: {cells['name']!r} is in no symbol table")
            mapping = symbol.targets.get(target)
            try:
                level = Difficulty.parse(cells["difficulty"]) if cells["difficulty"] else None
            except ValueError as exc:
                raise RuleDataError(f"{where}: difficulty: {exc}") from None
            if mapping is None or not mapping.replacement:
                if not cells["counterpart"]:
                    continue  # nothing to date: the target has no counterpart for it
                mapping = TargetMapping(cells["counterpart"], level, cells["note"])
            elif cells["counterpart"] and cells["counterpart"] != mapping.replacement:
                # A newer counterpart replaces the table's from `added` on (__hip_bfloat16 for hip_bfloat16).
                mapping = TargetMapping(cells["counterpart"], level, cells["note"], before=mapping)
            elif cells["note"]:
                mapping = records.replace(mapping, note="; ".join(n for n in (mapping.note, cells["note"]) if n))
            _mutable(symbol.targets)[target] = records.replace(
                mapping,
                added=cells["added"],
                deprecated=cells["deprecated"],
                removed=cells["removed"],
                condition=cells["condition"],
            )
    ruleset.sources.append(path)


def _mutable(targets: Mapping[str, TargetMapping]) -> dict[str, TargetMapping]:
    """Symbols are built with a dict of mappings; loading completes it before anything reads the rule data."""
    assert isinstance(targets, dict)
    return targets


def _add_symbol(ruleset: RuleSet, table: MutableMapping[str, Symbol], symbol: Symbol, key: str) -> None:
    if key == "name" and symbol.name.endswith("*"):
        ruleset.prefixes.append(_renamed(symbol, symbol.name[:-1]))
    elif key == "header" and any(ch in symbol.name for ch in "*?["):
        ruleset.header_globs.append(symbol)
    else:
        table.setdefault(symbol.name, symbol)  # the first table that names a symbol owns it


def _renamed(symbol: Symbol, name: str) -> Symbol:
    return records.replace(symbol, name=name)


def _load_extra(ruleset: RuleSet, path: Path, data: Mapping[str, Any] | None) -> None:
    if path.suffix == ".csv":
        import csv

        with _open_csv(path) as handle:
            columns = csv.DictReader(handle).fieldnames or []
        if "rule" not in columns:  # only counterparts: columns for names the bundled tables declare
            _merge_counterparts(ruleset, path)
            return
        added: dict[str, Symbol] = {}
        _load_symbol_csv(ruleset, path, added)
        for name, symbol in added.items():  # extra tables override the bundled entries, keeping other targets'
            known = ruleset.symbols.get(name)
            if known is not None and known.rule == symbol.rule:
                symbol = records.replace(symbol, targets={**known.targets, **symbol.targets})
            ruleset.symbols[name] = symbol
        return
    assert data is not None
    own_docs = str(data.get("docs-url", ""))  # a house rule file documents its rules itself
    for index, entry in enumerate(data.get("rule", [])):
        rule = _parse_rule(entry, f"{path}: rule #{index + 1}", ruleset)
        if own_docs and not rule.url:
            rule = records.replace(rule, url=own_docs.format(code=rule.code.lower()))
        ruleset.rules[rule.code] = rule
    for index, entry in enumerate(data.get("symbol", [])):
        where = f"{path}: symbol #{index + 1}"
        row = {k.replace("-", "_"): str(v) for k, v in entry.items()}
        _check_columns(ruleset, row, where)
        symbol = _row_symbol(row, "name", path.stem, where, tuple(ruleset.targets))
        if symbol.name.endswith("*"):
            ruleset.prefixes.append(_renamed(symbol, symbol.name[:-1]))
        else:
            ruleset.symbols[symbol.name] = symbol
    for stem in set(data) & set(ruleset.tables):  # `[python.target.acme]`, `[[python.api]]`: merged in
        ruleset.tables[stem] = _merged(ruleset.tables[stem], data[stem], f"{path}: {stem}")
    unknown = set(data) - {"rule", "symbol", "target", "docs-url"} - set(ruleset.tables)
    if unknown:
        listed = ", ".join(["rule", "symbol", "target", "docs-url", *sorted(ruleset.tables)])
        raise RuleDataError(f"{path}: unknown top-level key(s): {', '.join(sorted(unknown))} (known: {listed})")
    ruleset.sources.append(path)


def _merged(base: Any, extra: Any, where: str) -> Any:
    """An analyzer table with an extra file's additions: tables merge key by key, lists grow, values replace."""
    if isinstance(base, dict) and isinstance(extra, dict):
        out = dict(base)
        for key, value in extra.items():
            out[key] = _merged(base[key], value, f"{where}.{key}") if key in base else value
        return out
    if isinstance(base, list) and isinstance(extra, list):
        return [*base, *extra]
    if isinstance(base, (dict, list)) or isinstance(extra, (dict, list)):
        raise RuleDataError(f"{where}: a {type(extra).__name__} where the bundled data has a {type(base).__name__}")
    return extra


# Rule codes the analyzers name in code: rule data without one of them is broken at load, not on the first file.
_REQUIRED_RULES: set[str] = set()


def require_rules(*codes: str) -> None:
    """Called by an analyzer module for the rule codes it uses by name."""
    _REQUIRED_RULES.update(codes)


def _finish(ruleset: RuleSet) -> None:
    """Complete the data (targets' `like` and derived counterparts) and check it, so that a typo fails loudly at
    load time, naming the file."""
    for stem, table in ruleset.tables.items():  # `[target.<name>]` sections of analyzer tables cover every target
        sections = table.get("target")
        if isinstance(sections, dict):
            stray = sorted(set(sections) - set(ruleset.targets))
            if stray:
                raise RuleDataError(f"{stem}.toml: [target.{stray[0]}] is not a declared target")
            absent = [t for t in ruleset.targets if t not in sections]
            if absent:
                raise RuleDataError(
                    f"{stem}.toml: no [target.{absent[0]}] for a declared target (an extra rule file adds it as "
                    f"[{stem}.target.{absent[0]}])"
                )
    _check_required(ruleset)
    for rule in ruleset.rules.values():
        for levels, what in ((rule.difficulty, "difficulty"), (rule.unmapped, "unmapped")):
            for target in ruleset.targets.values():
                if target.name in levels:
                    continue
                source = [*_like_chain(ruleset, target.name, rule.code), DEFAULT_KEY]
                found = next((levels[t] for t in source if t in levels), None)
                if found is None:
                    raise RuleDataError(
                        f"rule {rule.code} gives no '{what}' for target {target.name!r}: add "
                        f'{what}.{target.name} to the rule, or `like = "<target>"` to the target'
                    )
                _mutable_difficulties(levels)[target.name] = found
            _mutable_difficulties(levels).pop(DEFAULT_KEY, None)  # filled in: no target is called that
    tables: list[Iterable[Symbol]] = [
        ruleset.symbols.values(),
        ruleset.prefixes,
        ruleset.headers.values(),
        ruleset.header_globs,
        ruleset.namespaces.values(),
    ]
    derived = [t for t in ruleset.targets.values() if t.derive]
    for table in tables:
        for symbol in table:
            if symbol.rule not in ruleset.rules:
                raise RuleDataError(f"symbol {symbol.name!r} ({symbol.library}) names unknown rule {symbol.rule!r}")
            for target in derived:
                if target.name not in symbol.targets:
                    _derive(symbol, target)
    # longest prefixes first, so `nvtxRange` wins over `nvtx`
    ruleset.prefixes.sort(key=lambda s: -len(s.name))
    ruleset.generic_names = frozenset(name for name, symbol in ruleset.symbols.items() if symbol.generic)


def _check_required(ruleset: RuleSet) -> None:
    missing = sorted(_REQUIRED_RULES - set(ruleset.rules))
    if missing:
        raise RuleDataError(f"rules.toml: the rule data lacks rule(s) the analyzers use: {', '.join(missing)}")


def _like_chain(ruleset: RuleSet, name: str, code: str) -> list[str]:
    chain: list[str] = []
    current = ruleset.targets[name].like_for(code)
    while current and current not in chain and current != name:
        chain.append(current)
        current = ruleset.targets[current].like_for(code) if current in ruleset.targets else ""
    return chain


def _mutable_difficulties(table: Mapping[str, Difficulty]) -> dict[str, Difficulty]:
    assert isinstance(table, dict)
    return table


def _derive(symbol: Symbol, target: Target) -> None:
    for derivation in target.derive:
        mapping = derivation.counterpart(symbol)
        if mapping is not None:
            _mutable(symbol.targets)[target.name] = mapping
            return


def _given(difficulty: Difficulty | None, default: Difficulty) -> Difficulty:
    """The data's difficulty when it gives one: `portable` is 0, so `or` would drop it."""
    return difficulty if difficulty is not None else default
