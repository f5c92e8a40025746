"""The results cache: what `check`, `fix` and `report` found in a file is kept on disk, so that a run over a tree
that has not changed reads its results back instead of analysing it again (ruff's cache, for cudaport).

Where: `.cudaport_cache/` in the project's root (with a `.gitignore` of `*` and a CACHEDIR.TAG, as ruff's), or
`--cache-dir`, else $CUDAPORT_RESULTS_CACHE_DIR, else `cache-dir` of the configuration; `--no-cache` (or
CUDAPORT_NO_CACHE=1) turns it off. One record per file, under `results/`, named by what the file's results depend
on that a run knows before reading it: cudaport's version and code, the rule data, the configuration that changes
an analysis, the language of messages, the file's absolute path. The record's head holds a digest of the file's
bytes, its status (size, times, inode) and the answers to every question the analysis asked about the project
around the file; the results follow it, read only when the head holds.

A record is used when the file's bytes have that digest and each of those questions, asked again now, has the same
answer: a file's results depend on more than its bytes (a C file on the project headers it includes, which may map
CUDA names; a Python file on the packages and linter configuration above it, on its sibling modules, on the
PyTorch release the project requires). The questions are the ones the analyzers put to their FileContext; a
RecordingContext keeps them while a file is analysed.

What a record holds is plain data (tuples, strings, numbers) in marshal's form (no pickle to load at start-up): the
runner's per-file results before any formatting, each finding with its fixes, in the order the analysis gave them. A
record that is missing, truncated, corrupt or from another version is a miss, rewritten after the file is analysed;
records are written whole to a temporary file and renamed into place, so concurrent runs never read half of one. A
cache folder that cannot be written is said once, and the run goes on without the cache. Binary kinds (ELF), read by
their analyzer a header at a time, are never cached. The language server's workspace scan reads and writes the same
records (runner.check_path_cached)."""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from .. import __version__, i18n
from ..analyzers.common.base import FileContext
from ..i18n import t
from ..knowledge.filekinds import file_kind
from ..knowledge.ruleset import RuleSet, prologue_fact
from ..model import records
from ..model.findings import Difficulty, Finding, Severity
from ..model.records import field, record
from ..model.results import Diagnostic, FileFindings
from ..model.source import SkipFile, SourceFile, read_source
from ..project.config import Settings
from ..project.files import SourcePath
from ..project.includes import ProjectIndex, Provenance
from ..resources.cache import write_whole
from . import dualplan
from .wire import pack_finding, unpack_finding

if TYPE_CHECKING:
    from .engine import Engine, FileResult

try:  # CPython's own BLAKE2: hashlib would load OpenSSL first, a tenth of a one-file check's start-up
    from _blake2 import blake2b
except ImportError:  # another Python
    from hashlib import blake2b

FORMAT = 4  # bump when the layout of a record changes (4: the head apart from the results; 3: marshal)
MAGIC = b"cudaport results %d\n" % FORMAT
FOLDER_NAME = ".cudaport_cache"
ENV_DIR = "CUDAPORT_RESULTS_CACHE_DIR"
ENV_OFF = "CUDAPORT_NO_CACHE"
_TAG = (
    b"Signature: 8a477f597d28d172789f06886806bc55\n"
    b"# This file is a cache directory tag created by cudaport.\n"
    b"# For information about cache directory tags see https://bford.info/cachedir/\n"
)
# Settings that choose files or weigh the report, never what a file's analysis gives.
_NOT_ANALYSIS = frozenset(
    {"exclude", "extend_exclude", "respect_gitignore", "force_exclude", "config_path", "warnings", "effort"}
    | {"fail_on", "cache_dir"}
)

# A file whose status changed this recently may change again within the file system's clock tick, keeping its
# size and times: its record holds no status, and the next run compares the file's bytes (git's "racily clean").
_RACY_NS = 2_000_000_000

# The questions whose answers depend on the folders above a file, asked again on every use of a record (each is
# answered once per folder in a run); the others are about the include graph (Provenance).
_FOLDER_QUESTIONS = frozenset({"own-module", "lints-imports"})

Job = TypeVar("Job")
Outcome = TypeVar("Outcome")


# ---- where ----------------------------------------------------------------------------------------------------
def cache_folder(settings: Settings, option: Path | None = None, disabled: bool = False) -> Path | None:
    """The results cache folder for a run: --cache-dir, else $CUDAPORT_RESULTS_CACHE_DIR, else `cache-dir` of the
    configuration, else .cudaport_cache in the project's root; None when turned off (--no-cache,
    CUDAPORT_NO_CACHE=1)."""
    if disabled or os.environ.get(ENV_OFF, "") not in ("", "0"):
        return None
    if option is not None:
        return Path(os.path.abspath(option))
    explicit = os.environ.get(ENV_DIR)
    if explicit:
        return Path(os.path.abspath(explicit))
    configured = getattr(settings, "cache_dir", None)
    if configured is not None:
        return Path(configured)
    return Path(os.path.abspath(settings.root)) / FOLDER_NAME


def _prepare(folder: Path) -> str | None:
    """Make the folder a cache folder (a .gitignore of `*`, a CACHEDIR.TAG) and see that records can be written
    there; the reason it cannot be used, or None."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, content in ((".gitignore", b"# Created by cudaport automatically.\n*\n"), ("CACHEDIR.TAG", _TAG)):
            if not (folder / name).exists():
                write_whole(folder / name, content)
                os.chmod(folder / name, 0o644)
        (folder / "results").mkdir(exist_ok=True)
        probe = folder / "results" / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


# ---- what a record depends on ----------------------------------------------------------------------------------
def _code_stamp() -> str:
    """cudaport's own code, by the size and time of each module (a development checkout changes without a new
    version number)."""
    package = Path(__file__).resolve().parents[1]
    parts = []
    for folder, dirs, names in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith(".py"):
                with contextlib.suppress(OSError):
                    info = os.stat(os.path.join(folder, name))
                    parts.append(f"{os.path.join(folder, name)} {info.st_size} {info.st_mtime_ns}")
    return "\n".join(parts)


def _rules_stamp(settings: Settings) -> str:
    from ..knowledge import rulecache
    from ..resources.paths import bundled_rules_dir

    extra = tuple(Path(p).resolve() for p in settings.extra_rules)
    return rulecache.fingerprint(bundled_rules_dir(), extra).decode("utf-8", "surrogateescape")


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return sorted((str(k), _plain(v)) for k, v in value.items())
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, (Difficulty, Severity)):
        return int(value)
    if hasattr(value, "value") and not isinstance(value, (str, int, float, bool)):
        return value.value  # an enum
    return str(value) if isinstance(value, Path) else value


def settings_stamp(settings: Settings) -> str:
    """The configuration that changes what a file's analysis gives (every setting but those that only choose
    files or weigh the report), as text."""
    return repr(
        [(f.name, _plain(getattr(settings, f.name))) for f in records.fields(settings) if f.name not in _NOT_ANALYSIS]
    )


def file_status(path: Path, settled: bool = False) -> tuple[int, ...] | None:
    """What tells a file has not changed without reading it: its size, modification and status-change times and
    inode (the status-change time moves on every write and no tool sets it back). `settled`: None for a file
    changed in the last moments (it may change again within one tick of the file system's clock)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    status = (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)
    return status if not settled or _settled(status) else None


def _settled(status: tuple[int, ...]) -> bool:
    return time.time_ns() - max(status[1], status[2]) >= _RACY_NS


def _digest(*parts: bytes | str) -> bytes:
    h = blake2b(digest_size=20)
    for part in parts:
        h.update(part.encode("utf-8", "surrogateescape") if isinstance(part, str) else part)
        h.update(b"\0")
    return h.digest()


def framed(magic: bytes, head: Any, body: bytes) -> bytes:
    """A cache file's bytes: its magic line, its head in marshal's form (its length first) and its body, so that
    the head can be judged before the body is used (unframe)."""
    written = marshal.dumps(head)
    return b"".join([magic, len(written).to_bytes(8, "little"), written, body])


def unframe(path: str, magic: bytes) -> tuple[Any, bytes] | None:
    """The head and body of a file `framed` wrote; None when it starts with another magic line (another format).
    Raises what reading and marshal raise (a missing or damaged file)."""
    with open(path, "rb") as handle:
        if handle.readline() != magic:
            return None
        raw = handle.read()
    size = int.from_bytes(raw[:8], "little")
    return marshal.loads(raw[8 : 8 + size]), raw[8 + size :]


# ---- what the analysis asked ----------------------------------------------------------------------------------
class RecordingContext(FileContext):
    """A FileContext that keeps every question the analyzers put about the project around the file, with its
    answer as plain data (`facts`), so that a cached result can be checked by asking them again."""

    __slots__ = ("facts",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.facts: dict[tuple[str, ...], Any] = {}

    @property
    def shims(self) -> Mapping[str, Any]:
        found = FileContext.shims.fget(self)  # type: ignore[attr-defined]
        self.facts[("shims", self.target)] = _answer_shims(found)
        return found  # type: ignore[no-any-return]

    @property
    def includes(self) -> frozenset[str] | None:
        found = FileContext.includes.fget(self)  # type: ignore[attr-defined]
        self.facts[("includes",)] = _answer_names(found)
        return found  # type: ignore[no-any-return]

    def include_facts(self, name: str) -> Any:
        found = super().include_facts(name)
        self.facts[("include-facts", name)] = _answer_include(found)
        return found

    def project_macros(self) -> frozenset[str]:
        found = super().project_macros()
        self.facts[("macros",)] = sorted(found)
        return found

    def is_own_module(self, top: str) -> bool:
        found = super().is_own_module(top)
        self.facts[("own-module", top)] = found
        return found

    def flags_unused_imports(self) -> bool:
        found = super().flags_unused_imports()
        self.facts[("lints-imports",)] = found
        return found

    def is_project_file(self, name: str) -> bool:
        found = super().is_project_file(name)
        self.facts[("project-file", name)] = found
        return found


def _answer_shims(found: Mapping[str, Any]) -> Any:
    return sorted((name, m.replacement, m.header) for name, m in found.items())


def _answer_names(found: frozenset[str] | None) -> Any:
    return None if found is None else sorted(found)


def _answer_include(found: Any) -> Any:
    return None if found is None else (sorted(found.names), found.uses_cuda)


def _ask(context: FileContext, question: tuple[str, ...]) -> Any:
    """The answer to `question` now (a question RecordingContext kept)."""
    kind = question[0]
    if kind == "shims":
        return _answer_shims(context.shims)
    if kind == "includes":
        return _answer_names(context.includes)
    if kind == "include-facts":
        return _answer_include(context.include_facts(question[1]))
    if kind == "macros":
        return sorted(context.project_macros())
    if kind == "own-module":
        return context.is_own_module(question[1])
    if kind == "lints-imports":
        return context.flags_unused_imports()
    if kind == "project-file":
        return context.is_project_file(question[1])
    raise KeyError(kind)


def _siblings(path: Path, listed: dict[str, bytes]) -> bytes:
    """The Python modules beside a Python file (a device abstraction's sides are files: `npu_accelerator.py`);
    `listed`: the folders listed in this run."""
    folder = os.path.dirname(os.path.abspath(path))
    known = listed.get(folder)
    if known is None:
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".py"))
        except OSError:
            names = []
        known = listed[folder] = _digest(*names)
    return _digest(known, os.path.basename(path))


def _file_facts(
    settings: Settings, rules: RuleSet | Callable[[], str], source_path: SourcePath, listed: dict[str, bytes]
) -> tuple[Any, ...]:
    """What a file's results depend on besides its bytes and the questions of its analysis: its dual-stack plan
    (the project's PyTorch release, where the helper module goes) and, for Python, its sibling modules. `rules`:
    the rule set, or what tells the release torch.accelerator came with (dualplan.has_accelerator)."""
    if source_path.language not in ("python", "notebook"):
        return ()  # the plan of any other file is its path's and the configuration's, both in the record's name
    # a Python file's plan is its folder's (the portability header, whose name ends in .h, is never one)
    folder = os.path.dirname(os.path.abspath(source_path.path))
    key = f"plan\0{folder}\0{source_path.path.suffix}"
    plan = listed.get(key)
    if plan is None:
        plan = listed[key] = marshal.dumps(records.astuple(dualplan.plan_for(settings, rules, source_path.path)))
    return (plan, _siblings(source_path.path, listed))


# ---- records --------------------------------------------------------------------------------------------------
def _encode_result(found: FileFindings, order: list[Finding]) -> tuple[Any, ...]:
    """One target's results: the line count, the error, and each finding (in the analysis's order) with where
    it is (its Diagnostic's lines and columns)."""
    placed = {id(d.finding): d for d in found.diagnostics}
    findings = []
    for finding in order:
        d = placed[id(finding)]
        findings.append((d.line, d.column, d.end_line, d.end_column, pack_finding(finding)))
    return (found.lines, found.error, tuple(findings))


@record
class Cached:
    """A file's results read back: per target, its FileFindings (diagnostics in output order) and its findings
    in the order the analysis gave them (what Engine.check_path returns)."""

    results: dict[str, FileFindings]
    findings: dict[str, list[Finding]]


def _decode_results(source_path: SourcePath, plain: Mapping[str, Any], targets: Sequence[str]) -> Cached:
    results: dict[str, FileFindings] = {}
    ordered: dict[str, list[Finding]] = {}
    for target in targets:
        lines, error, findings = plain[target]
        found = FileFindings(source_path.label, source_path.language, target, lines=lines, error=error)
        order = []
        for line, column, end_line, end_column, finding in findings:
            decoded = unpack_finding(finding)
            order.append(decoded)
            found.diagnostics.append(Diagnostic(source_path.label, line, column, end_line, end_column, decoded))
        found.diagnostics.sort(key=lambda d: (d.line, d.column, d.finding.rule))  # as runner.locate orders them
        results[target] = found
        ordered[target] = order
    return Cached(results, ordered)


@record
class Lookup:
    """What the cache had for a file: its record's payload (None: analyse it). Only these bytes wait for the
    file's turn in the output, never the file or its decoded results."""

    hit: bytes | None = None
    seal: bytes = b""  # the payload's digest, as its record holds it (checked against the payload)


@record
class Pending:
    """A file just analysed, and what its analysis asked about the project: its record, once its results are
    placed (ResultCache.store)."""

    results: dict[str, FileResult]
    questions: dict[tuple[str, ...], Any]
    provenance: Any  # what the project's answers came from (ResultCache._stamp), None: not known
    status: tuple[int, ...] | None = None  # the file's status before it was read (file_status), None: not known


@record
class ResultCache:
    """The results cache of one run (one configuration): picklable, so that worker processes store what they
    analyse. `hits` and `misses` count the lookups of this process."""

    folder: Path
    key: bytes
    settings: Settings
    roots: list[Path] = field(default_factory=list)
    hits: int = 0
    misses: int = 0
    _engine: Engine | None = field(default=None, repr=False)
    _index: ProjectIndex | None = field(default=None, repr=False)  # the include graph the records are checked by
    _stats: dict[str, Any] = field(default_factory=dict, repr=False)  # path -> (size, time) or None, this run's
    _resolved: dict[tuple[str, str], Any] = field(default_factory=dict, repr=False)  # include names, this run's
    _listed: dict[str, bytes] = field(default_factory=dict, repr=False)  # folders' modules and plans, this run's

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_engine"] = None
        state["_index"] = None
        state["_stats"] = {}
        state["_resolved"] = {}
        state["_listed"] = {}
        return state

    # -- naming ---------------------------------------------------------------------------------------------------
    def record_path(self, source_path: SourcePath) -> Path:
        return Path(self._record_file(source_path))

    def _record_file(self, source_path: SourcePath) -> str:
        # by the file's absolute path, not its label: `check .` and `check src/a.cu` and the language server's
        # workspace scan name one file three ways, and its record holds nothing of the label
        name = _digest(self.key, os.path.abspath(source_path.path)).hex()
        return os.path.join(self.folder, "results", name[:2], name)

    @staticmethod
    def cacheable(source_path: SourcePath) -> bool:
        kind = file_kind(source_path.language)
        return not (kind is not None and kind.binary)

    def _accelerator_since(self) -> str:
        """The release torch.accelerator came with, for checking a Python file's dual-stack plan: from the rule
        cache's prologue (no rule set, no engine)."""
        return str(prologue_fact("accelerator-since", self.settings.extra_rules))

    def engine(self) -> Engine:
        """An engine to ask a record's questions again (the project's include graph, read once per run)."""
        if self._engine is None:
            from .engine import Engine  # the analysis: not loaded by a run the results cache answers whole

            self._engine = Engine(self.settings)
            self._engine.project = self._project()
        return self._engine

    def _project(self) -> ProjectIndex:
        """The project's include graph, read once per run; its rule data loads only when a header must be read
        (whether an include name still names the same file needs none)."""
        if self._index is None:
            self._index = ProjectIndex(lambda: self.engine().ruleset, self.roots)
        return self._index

    # -- reading -------------------------------------------------------------------------------------------------
    def lookup(self, source_path: SourcePath, targets: Sequence[str], source: SourceFile | None = None) -> Lookup:
        """The record's payload if it still holds for every one of `targets`. The file is read (unless the caller
        has read it: `source`) only when its status (size, times, inode) is not the one its record holds."""
        found = self._valid(source_path, targets, source) if self.cacheable(source_path) else None
        if found is None:
            self.misses += 1
            return Lookup()
        self.hits += 1
        return Lookup(*found)

    def _valid(
        self, source_path: SourcePath, targets: Sequence[str], source: SourceFile | None
    ) -> tuple[bytes, bytes] | None:
        try:
            status = None if source is not None else file_status(source_path.path)
            # the head is read to judge the record; the results stay bytes until the file's turn comes (decode)
            read = unframe(self._record_file(source_path), MAGIC)
            if read is None:
                return None
            head, payload = read
            digest, encoding, recorded_status, facts, questions, provenance, recorded_targets, sealed = head
        except Exception:  # missing, truncated, corrupt, another version's: analyse the file, and rewrite the record
            return None
        if any(target not in recorded_targets for target in targets) or _digest(payload) != sealed:
            return None  # another set of targets, or results truncated or damaged since they were written
        if status is None or recorded_status != status:  # the file may have changed: its bytes tell
            try:
                source = source or read_source(source_path.path, self.settings.max_file_size)
            except SkipFile:
                return None  # the run says why, as without the cache
            if digest != _digest(source.data) or encoding != source.encoding:
                return None
            refresh = status is not None and _settled(status)
        else:
            refresh = False
        try:
            # the engine (and the rule data) only for what needs it: a C file whose headers have not changed asks
            # nothing of either
            if facts != _file_facts(self.settings, self._accelerator_since, source_path, self._listed):
                return None
            if self._unchanged(provenance):  # the project's answers hold: only the folder's are asked again
                questions = [(q, a) for q, a in questions if q[0] in _FOLDER_QUESTIONS]
            if source is None and any(q[0] not in _FOLDER_QUESTIONS for q, _ in questions):
                source = read_source(source_path.path, self.settings.max_file_size)  # the include graph's, by text
            data = source.data if source is not None else b""  # the folders' questions never read the text
            contexts: dict[tuple[str, bool], FileContext] = {}
            for question, answer in questions:
                target = question[1] if question[0] == "shims" else self.settings.target
                folders_only = question[0] in _FOLDER_QUESTIONS  # asked of the path alone: no engine needed
                context = contexts.get((target, folders_only))
                if context is None:
                    context = contexts[target, folders_only] = (
                        FileContext(target, str(source_path.path), file=source_path.path, data=data)
                        if folders_only
                        else self.engine().context_for(source_path.path, data, target)
                    )
                if _ask(context, tuple(question)) != answer:
                    return None
        except Exception:
            return None
        if refresh:  # the same bytes under a new status (a copy, a checkout): the next run need not read them
            self._write(source_path, (digest, encoding, status, *head[3:-1]), payload)
        return payload, sealed

    @staticmethod
    def decode(source_path: SourcePath, lookup: Lookup, targets: Sequence[str]) -> Cached:
        assert lookup.hit is not None
        results = marshal.loads(lookup.hit)
        return _decode_results(source_path, results, targets)

    def _stat(self, path: str) -> tuple[int, int] | None:
        known = self._stats.get(path, False)
        if known is False:
            try:
                info = os.stat(path)
                known = (info.st_size, info.st_mtime_ns)
            except OSError:
                known = None
            self._stats[path] = known
        return known if known is None else (known[0], known[1])

    def _stamp(self, provenance: Provenance) -> Any:
        """What the answers about the project came from, as plain data: the include roots, each header read with
        its size and time, each include name with the file it resolved to."""
        files = tuple(sorted((str(p), *(self._stat(str(p)) or (-1, -1))) for p in provenance.files))
        resolved = tuple(sorted((str(f), n, None if p is None else str(p)) for f, n, p in provenance.resolutions))
        return (tuple(str(r) for r in self.roots), files, resolved)

    def _unchanged(self, provenance: Any) -> bool:
        """Whether what the project's answers came from is as it was (None: not known, so they are asked)."""
        if provenance is None:
            return False
        roots, files, resolved = provenance
        if roots != tuple(str(r) for r in self.roots):
            return False
        for path, size, mtime in files:
            if self._stat(path) != (size, mtime):
                return False
        return all(self._resolution(folder, name) == found for folder, name, found in resolved)

    def _resolution(self, folder: str, name: str) -> str | None:
        key = (folder, name)
        known = self._resolved.get(key, False)
        if known is False:
            now = self._project()._resolve(Path(folder), name)
            known = self._resolved[key] = None if now is None else str(now)
        return None if known is None else str(known)

    # -- writing -------------------------------------------------------------------------------------------------
    def analyse(
        self, engine: Engine, source_path: SourcePath, targets: Sequence[str], source: SourceFile | None = None
    ) -> tuple[dict[str, FileResult], Pending | None]:
        """Engine.check_path_targets, keeping what the analysis asked about the project; the Pending record is
        None for a file that is not cached (a binary kind, one that could not be read, or whose analysis failed:
        an internal error may not be the file's)."""
        made: list[RecordingContext] = []

        def recording(*args: Any, **kwargs: Any) -> FileContext:
            context = RecordingContext(*args, **kwargs)
            made.append(context)
            return context

        project = engine.project if isinstance(engine.project, ProjectIndex) else None
        provenance = Provenance(set(), set())
        status = None if source is not None else file_status(source_path.path, settled=True)  # before the read
        engine.context_factory = recording
        if project is not None:
            project.recording = provenance
        try:
            results = engine.check_path_targets(source_path, targets, source)
        finally:
            engine.context_factory = FileContext
            if project is not None:
                project.recording = None
        if not self.cacheable(source_path) or any(r.source is None or r.error for r in results.values()):
            return results, None
        questions: dict[tuple[str, ...], Any] = {}
        for context in made:
            questions.update(context.facts)
        stamp = self._stamp(provenance) if project is not None else None
        return results, Pending(results, questions, stamp, status)

    def store(self, engine: Engine, source_path: SourcePath, pending: Pending, found: list[FileFindings]) -> None:
        """Write the record of what `analyse` gave (`found`: its FileFindings). Never raises."""
        source = next(iter(pending.results.values())).source
        assert source is not None
        try:
            plain = {f.target: _encode_result(f, pending.results[f.target].findings) for f in found}
            record = (
                _digest(source.data),
                source.encoding,
                pending.status,
                _file_facts(engine.settings, engine.ruleset, source_path, self._listed),
                sorted(pending.questions.items()),
                pending.provenance,
                tuple(plain),
            )
            results = marshal.dumps(plain)
        except Exception as exc:
            _not_written(source_path, exc)
            return
        self._write(source_path, record, results)

    def _write(self, source_path: SourcePath, head: tuple[Any, ...], results: bytes) -> None:
        """A record: its head (what judges it) and its results (marshalled apart: read only for a hit)."""
        try:
            path = self.record_path(source_path)
            path.parent.mkdir(exist_ok=True)
            write_whole(path, framed(MAGIC, (*head, _digest(results)), results))  # the results' digest seals them
        except Exception as exc:  # a full disk, a folder removed meanwhile: the next run analyses it again
            _not_written(source_path, exc)

    def declined(self) -> None:
        """A hit that did not answer after all (fix: the file has something to fix): it counts as a miss."""
        self.hits -= 1
        self.misses += 1

    def summary(self) -> str:
        return summary(self.hits, self.misses)


def summary(hits: int, misses: int) -> str:
    """What a run's lookups did, as `check --verbose` says it (the language server sums its caches')."""
    return t("cache: {hits} hits, {misses} misses", hits=hits, misses=misses)


def _not_written(source_path: SourcePath, exc: Exception) -> None:
    from ..resources.cache import debug

    debug("results cache: %s not written (%s: %s)", source_path.label, type(exc).__name__, exc)


def open_cache(
    settings: Settings,
    roots: Sequence[Path] = (),
    option: Path | None = None,
    disabled: bool = False,
    warn: Callable[[str], None] | None = None,
) -> ResultCache | None:
    """The results cache of a run with these settings, or None (turned off, or its folder cannot be written: then
    `warn` is told why and the run goes on without it)."""
    folder = cache_folder(settings, option, disabled)
    if folder is None:
        return None
    problem = _prepare(folder)
    if problem is not None:
        if warn is not None:
            warn(
                t(
                    "cannot use the cache folder {folder} ({error}): running without the cache",
                    folder=folder,
                    error=problem,
                )
            )
        return None
    key = _digest(
        str(FORMAT),
        __version__,
        f"{sys.version_info[0]}.{sys.version_info[1]}",
        _code_stamp(),
        _rules_stamp(settings),
        settings_stamp(settings),
        i18n.language(),
    )
    return ResultCache(folder, key, settings, list(roots))


def interleave(
    files: Sequence[SourcePath],
    lookup: Callable[[SourcePath], Lookup],
    answer: Callable[[SourcePath, Lookup], Outcome],
    job: Callable[[SourcePath], Job],
    run: Callable[[list[Job]], Iterator[Outcome]],
    progress: Callable[[int, int], None] | None = None,
    usable: Callable[[SourcePath, Lookup], bool] | None = None,
) -> Iterator[Outcome]:
    """The outcomes of `files` in their order: those the cache has read back (`answer`), the others run as jobs
    (`run`, in their order) and interleaved. The lookups come first, so the jobs are known before any starts (they
    are spread over the workers); a hit keeps only its record's bytes until its turn, when it is decoded. `usable`:
    whether a hit answers after all (fix: only a file with nothing to fix)."""
    waiting: list[Lookup | None] = []
    jobs: list[Job] = []
    for source_path in files:
        found = lookup(source_path)
        if found.hit is not None and (usable is None or usable(source_path, found)):
            waiting.append(found)
        else:
            waiting.append(None)
            jobs.append(job(source_path))
    ran = run(jobs)
    count = len(files)
    for done, (source_path, waited) in enumerate(zip(files, waiting, strict=True), start=1):
        yield answer(source_path, waited) if waited is not None else next(ran)
        if progress:
            progress(done, count)
