"""Which PyTorch operators each target's PyTorch runs natively (`rules/operators/`).

A call of a PyTorch API reaches ATen operators (python.csv: the ways a default call can go, each a sequence of
operators). An operator reaches a device kernel of its own, through its out= overload (`delegate`), through one
generic kernel for every device (`cea`), or by decomposing into other operators first (`cia`), which needs no
kernel of its own: aten.csv says which. A device plugin (torch_npu, torch_mlu, torch_musa) lists the operators it
has kernels for; an operator it lacks falls back to the CPU or fails (plugins.toml). An API is a gap of a plugin
when every way its call can go meets an operator the plugin lacks and PyTorch has a CUDA kernel for (an operator
CUDA lacks too never ran on the GPU: its tensors were on the CPU already). A decomposition is not followed past what
aten.csv knows: a `cia` operator counts as covered. torch_mlu's API support list is not a source of gaps on its own
(it marks metadata functions and decomposing APIs such as `torch.result_type` or `Tensor.softmax` unsupported): a
gap says whether the list agrees, and whether it notes a limitation.

The rule set's build works the gaps out once per plugin release and keeps them in the compiled rule cache; the
analyzer asks `coverage(ruleset, target)` for the release the user builds with (`npu@2.13`), else the newest."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..model.records import record
from ..resources.paths import RuleDataError
from . import tomlcompat

_KINDS = frozenset({"kernel", "delegate", "cea", "cia", "none"})
_MISSING = frozenset({"cpu-fallback", "error"})


@record(frozen=True, slots=True)
class Plugin:
    """A device plugin release: its package, the PyTorch it is built for, and what a call of an operator it lacks
    does (`cpu-fallback`: runs on the CPU, slowly, with a warning, unless `strict` is set; `error`: raises)."""

    target: str
    package: str
    release: str
    torch: str
    missing: str
    strict: str = ""
    api_list: bool = False  # the plugin publishes a list of the Python APIs it supports (torch_mlu)


@record(frozen=True, slots=True)
class Gap:
    """A PyTorch API whose call the plugin cannot run natively."""

    api: str  # as python.csv spells it: torch.linalg.svd, torch.nn.functional.ctc_loss, torch.nn.CTCLoss, Tensor.lcm
    kind: str  # function, method or module
    operators: tuple[str, ...]  # the ATen operators the plugin lacks, one per way the call can go
    unlisted: bool = False  # the plugin's API support list marks the API unsupported
    limited: bool = False  # the plugin's API support list notes a limitation of it


@record(frozen=True, slots=True)
class OperatorCoverage:
    """What a target's PyTorch lacks. `plugin` None: PyTorch itself built for the target (ROCm, MACA, CoreX),
    whose kernels are PyTorch's CUDA kernels built for it: no gaps are known."""

    target: str
    plugin: Plugin | None
    torch: str  # the PyTorch release the operator data was read from
    gaps: Mapping[str, Gap]  # api -> gap
    # The last component of every gap's API (`svd`, `CTCLoss`, `lcm`): what a file is searched for.
    words: frozenset[bytes]

    def gap(self, api: str) -> Gap | None:
        return self.gaps.get(api)


@record(frozen=True, slots=True)
class TensorFacts:
    """What tells that an expression is a tensor, and where it is (tensors.toml)."""

    factories: frozenset[str] = frozenset()
    like: frozenset[str] = frozenset()
    combine: frozenset[str] = frozenset()
    methods: frozenset[str] = frozenset()
    to_device: frozenset[str] = frozenset()
    to_cpu: frozenset[str] = frozenset()
    annotations: frozenset[str] = frozenset()


@record(frozen=True, slots=True)
class OperatorData:
    """Every plugin release's coverage, worked out when the rule set is built."""

    torch: str
    coverages: Mapping[tuple[str, str], OperatorCoverage]  # (target, release) -> coverage
    newest: Mapping[str, str]  # target -> the release assumed when the user names none
    builtin: frozenset[str]  # targets whose PyTorch is PyTorch built for them
    tensors: TensorFacts = TensorFacts()

    def releases(self, target: str) -> tuple[str, ...]:
        return tuple(sorted((r for t, r in self.coverages if t == target), key=_release_key))

    def coverage(self, target: str, release: str = "") -> OperatorCoverage | None:
        """The coverage of `target` at `release` (a plugin release the data has; else the newest)."""
        if target in self.builtin:
            return OperatorCoverage(target, None, self.torch, {}, frozenset())
        if target not in self.newest:
            return None
        chosen = release if (target, release) in self.coverages else self.newest[target]
        return self.coverages.get((target, chosen))


def plugin_release(releases: tuple[str, ...], given: str) -> str | None:
    """The release of `releases` that `given` names: the same numbers (`2.14` is 2.14.0), else None."""
    key = _release_key(given)
    for release in releases:
        full = _release_key(release)
        if full[: len(key)] == key and all(part == 0 for part in full[len(key) :]):
            return release
    for release in releases:
        if _release_key(release)[: len(key)] == key:
            return release
    return None


def _release_key(release: str) -> tuple[int, ...]:
    parts = []
    for part in release.split("."):
        digits = "".join(c for c in part if c.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


# ---- building -------------------------------------------------------------------------------------------------
def build_operator_data(folder: Path) -> OperatorData | None:
    """Read rules/operators/ (None when the folder is not there: an extra rule set of its own)."""
    plugins_file = folder / "plugins.toml"
    if not plugins_file.is_file():
        return None
    where = "rules/operators/plugins.toml"
    try:
        table = dict(tomlcompat.loads(plugins_file.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, tomlcompat.TOMLDecodeError) as exc:
        raise RuleDataError(f"{where}: {exc}") from exc
    torch = table.get("torch", {})
    files = [str(f) for f in torch.get("files", [])]
    if files != ["aten.csv", "python.csv"]:
        raise RuleDataError(f"{where}: [torch] files must be aten.csv and python.csv")
    operators = _read_aten(folder / "aten.csv")
    apis = _read_apis(folder / "python.csv", operators)
    coverages: dict[tuple[str, str], OperatorCoverage] = {}
    newest: dict[str, str] = {}
    for target, entry in dict(table.get("plugin", {})).items():
        newest[target] = str(entry.get("newest", ""))
        missing = str(entry.get("missing", ""))
        if missing not in _MISSING:
            raise RuleDataError(f"{where}: plugin.{target}.missing must be one of {sorted(_MISSING)}")
        for release, facts in dict(entry.get("release", {})).items():
            listed = _read_list(folder / str(facts["file"]))
            api_list = _read_api_list(folder / str(facts["api"])) if facts.get("api") else None
            plugin = Plugin(
                target,
                str(entry.get("name", "")),
                str(release),
                str(facts.get("torch", "")),
                missing,
                str(entry.get("strict", "")),
                api_list is not None,
            )
            gaps = _gaps(apis, operators, listed, api_list)
            words = frozenset(api.rpartition(".")[2].encode() for api in gaps)
            coverages[(target, str(release))] = OperatorCoverage(
                target, plugin, str(torch.get("release", "")), gaps, words
            )
        if (target, newest[target]) not in coverages:
            raise RuleDataError(f"{where}: plugin.{target}.newest names no release of its own")
    builtin = frozenset(str(t) for t in dict(table.get("builtin", {})))
    return OperatorData(
        str(torch.get("release", "")), coverages, newest, builtin, _read_tensors(folder / "tensors.toml")
    )


_TENSOR_KEYS = ("factories", "like", "combine", "methods", "to-device", "to-cpu", "annotations")


def _read_tensors(path: Path) -> TensorFacts:
    try:
        table = dict(tomlcompat.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, tomlcompat.TOMLDecodeError) as exc:
        raise RuleDataError(f"{path}: {exc}") from exc
    stray = sorted(set(table) - set(_TENSOR_KEYS))
    if stray:
        raise RuleDataError(f"{path}: unknown key {stray[0]!r} (known: {', '.join(_TENSOR_KEYS)})")
    values = {key.replace("-", "_"): frozenset(str(v) for v in table.get(key, [])) for key in _TENSOR_KEYS}
    return TensorFacts(**values)


@record(frozen=True, slots=True)
class _Operator:
    kind: str
    delegate: str
    cuda: bool


@record(frozen=True, slots=True)
class _Api:
    kind: str
    ways: tuple[tuple[str, ...], ...]


def _rows(path: Path, columns: tuple[str, ...]) -> list[dict[str, str]]:
    import csv  # only when the rule data is built: the cache holds the coverage worked out

    try:
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            if tuple(reader.fieldnames or ()) != columns:
                raise RuleDataError(f"{path}: the columns must be {', '.join(columns)}")
            return list(reader)
    except OSError as exc:
        raise RuleDataError(f"{path}: cannot read: {exc.strerror or exc}") from exc


def _read_aten(path: Path) -> dict[str, _Operator]:
    out: dict[str, _Operator] = {}
    for row in _rows(path, ("op", "kind", "delegate", "cuda")):
        if row["kind"] not in _KINDS:
            raise RuleDataError(f"{path}: {row['op']}: unknown kind {row['kind']!r}")
        out[row["op"]] = _Operator(row["kind"], row["delegate"], row["cuda"] == "1")
    return out


def _read_apis(path: Path, operators: Mapping[str, _Operator]) -> dict[str, _Api]:
    out: dict[str, _Api] = {}
    for row in _rows(path, ("api", "kind", "paths")):
        ways = tuple(tuple(op for op in way.split(";") if op) for way in row["paths"].split("|") if way)
        unknown = [op for way in ways for op in way if op not in operators]
        if unknown:
            raise RuleDataError(f"{path}: {row['api']}: operators aten.csv does not have: {', '.join(unknown)}")
        out[row["api"]] = _Api(row["kind"], ways)
    return out


def _read_list(path: Path) -> frozenset[str]:
    """The operators a plugin registers a kernel for, in any of its sections (see plugins.toml)."""
    return frozenset(row["op"] for row in _rows(path, ("op", "section")))


def _read_api_list(path: Path) -> dict[str, tuple[bool, bool]]:
    return {
        row["api"]: (row["supported"] == "1", row["limited"] == "1")
        for row in _rows(path, ("api", "supported", "limited"))
    }


def _lacks(op: str, operators: Mapping[str, _Operator], listed: frozenset[str]) -> bool:
    """The plugin has no kernel for `op` that PyTorch has a CUDA kernel for (a decomposing or generic operator
    needs none)."""
    found = operators[op]
    if op in listed or not found.cuda:
        return False
    if found.kind == "kernel":
        return True
    return found.kind == "delegate" and found.delegate not in listed


def _gaps(
    apis: Mapping[str, _Api],
    operators: Mapping[str, _Operator],
    listed: frozenset[str],
    api_list: Mapping[str, tuple[bool, bool]] | None,
) -> dict[str, Gap]:
    gaps: dict[str, Gap] = {}
    for name, api in apis.items():
        if not api.ways:
            continue
        lacking = [next((op for op in way if _lacks(op, operators, listed)), None) for way in api.ways]
        if not all(lacking):
            continue
        supported, limited = api_list.get(name, (True, False)) if api_list is not None else (True, False)
        gaps[name] = Gap(name, api.kind, tuple(dict.fromkeys(op for op in lacking if op)), not supported, limited)
    return gaps
