"""One resolver of configuration for every front end: `[tool.cudaport]` in pyproject.toml, or cudaport.toml.

The nearest configuration file above the first path wins (cudaport.toml before pyproject.toml in the same
folder); command-line or editor settings are applied on top of it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import i18n
from ..i18n import N_, t
from ..knowledge import tomlcompat
from ..knowledge.ruleset import RuleDataError, load_ruleset
from ..model.findings import DEFAULT_SEVERITY, Difficulty, FixStyle, Severity
from ..model.nearest import did_you_mean
from ..model.records import field, record, replace
from ..model.source import DEFAULT_MAX_FILE_SIZE

CONFIG_FILES = ("cudaport.toml", "pyproject.toml")
# ruff's default excludes, and the build trees of C/C++/CUDA projects (a folder with CMakeCache.txt, pyvenv.cfg,
# conda-meta or meson-private is one whatever its name: files.Selection)
DEFAULT_EXCLUDE = (
    ".git",
    ".hg",
    ".svn",
    ".bzr",
    ".direnv",
    ".git-rewrite",
    ".ipynb_checkpoints",
    ".pants.d",
    ".pyenv",
    ".pytype",
    ".tox",
    ".nox",
    ".venv",
    "venv",
    ".eggs",
    "*.egg-info",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".cudaport_cache",
    ".pytest_cache",
    "node_modules",
    "site-packages",
    "__pypackages__",
    "_build",
    "build",
    "cmake-build-*",
    "CMakeFiles",
    "buck-out",
    "dist",
)


DEFAULT_COMPAT_HEADER = "cudaport_compat.h"
DEFAULT_DEVICE_HELPER = "cudaport_device.py"


# Where settings came from, as error messages name it when there is no file.
COMMAND_LINE = N_("command line")
CONFIGURATION = N_("configuration")


class ConfigError(Exception):
    """Configuration that cannot be used; the message names the file and the key."""


@record(frozen=True)
class Settings:
    target: str = "hip"
    versions: Mapping[str, str] = field(default_factory=dict)  # target -> release given (`hip@6.2`)
    select: tuple[str, ...] = ("CP",)
    ignore: tuple[str, ...] = ()
    severity: Mapping[str, Severity] = field(default_factory=dict)
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True  # leave out what .gitignore, .ignore and .git/info/exclude ignore (as ruff)
    # Excludes apply to files named on the command line too (as ruff's): a pre-commit hook passes every changed file.
    force_exclude: bool = False
    extra_rules: tuple[Path, ...] = ()
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    fail_on: Difficulty = Difficulty.MECHANICAL
    effort: Mapping[str, Any] = field(default_factory=dict)  # the report's effort weights changed (rules/effort.toml)
    config_path: Path | None = None
    root: Path = field(default_factory=Path.cwd)
    fix_style: FixStyle = FixStyle.RENAME
    # Dual-stack fixes: the portability header C/C++/CUDA files include, and the Python helper module's file name.
    compat_header: Path | None = None  # None: DEFAULT_COMPAT_HEADER in `root`
    device_helper: str = DEFAULT_DEVICE_HELPER
    # The language of messages (`lang`: one of i18n.LANGUAGES); None: the environment decides (i18n.choose).
    lang: str | None = None
    # What the user should be told about these settings that is no error (a release past the rule data's).
    warnings: tuple[str, ...] = ()
    # Where the results cache lives (`cache-dir`; None: .cudaport_cache in `root`; engine.resultcache).
    cache_dir: Path | None = None

    @property
    def compat_header_path(self) -> Path:
        return self.compat_header if self.compat_header is not None else self.root / DEFAULT_COMPAT_HEADER

    @property
    def target_spec(self) -> str:
        """The target as the user names it with its version: `hip@6.2`, or `npu`."""
        version = self.versions.get(self.target)
        return f"{self.target}@{version}" if version else self.target

    @property
    def all_excludes(self) -> tuple[str, ...]:
        return self.exclude + self.extend_exclude

    def rule_enabled(self, code: str) -> bool:
        """ruff's resolution: the most specific matching prefix wins; on a tie, ignore wins."""
        selected = max((len(p) for p in self.select if code.startswith(p)), default=-1)
        ignored = max((len(p) for p in self.ignore if code.startswith(p)), default=-1)
        return selected >= 0 and selected > ignored

    def severity_for(self, code: str, difficulty: Difficulty) -> Severity:
        best: tuple[int, Severity] | None = None
        for prefix, severity in self.severity.items():
            if code.startswith(prefix) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), severity)
        if best is not None:
            return best[1]
        return DEFAULT_SEVERITY[difficulty]


_KEYS = {
    "target",
    "select",
    "extend-select",
    "ignore",
    "severity",
    "exclude",
    "extend-exclude",
    "respect-gitignore",
    "force-exclude",
    "extra-rules",
    "max-file-size",
    "fail-on",
    "effort",
    "fix-style",
    "compat-header",
    "device-helper",
    "lang",
    "cache-dir",
}


def find_config(start: Path) -> Path | None:
    """The nearest cudaport.toml, or pyproject.toml with a [tool.cudaport] table, at or above `start`."""
    start = start.resolve()
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        for name in CONFIG_FILES:
            path = candidate / name
            if not path.is_file():
                continue
            if name == "cudaport.toml" or _has_tool_table(path):
                return path
    return None


def configured_language(start: Path) -> str | None:
    """The `lang` of the nearest configuration, for a command that reads nothing else of it (`cudaport rule`): a
    configuration that cannot be read is left to the commands that use it, but a `lang` naming no language is an
    error here too."""
    path = find_config(start)
    if path is None:
        return None
    try:
        table = _read_table(path)
    except ConfigError:
        return None
    if "lang" not in table:
        return None
    prefix = "tool.cudaport." if path.name == "pyproject.toml" else ""
    return _language(table["lang"], str(path), prefix + "lang")


def _has_tool_table(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return "[tool.cudaport" in text


def load_settings(
    start: Path | None = None,
    config: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    known_targets: Sequence[str] | Mapping[str, str] | None = None,
    overrides_from: str = COMMAND_LINE,
    use_files: bool = True,
) -> Settings:
    """Settings for paths under `start` (or from an explicit `config` file), with `overrides` applied on top.

    `overrides` uses the configuration keys (`target`, `select`, `extend-exclude`, ...); `overrides_from` names
    where they came from in error messages. `use_files=False` ignores configuration files (the defaults a front
    end falls back to when the project's configuration is broken)."""
    path = config if config is not None else find_config(start or Path.cwd()) if use_files else None
    table: dict[str, Any] = {}
    if path is not None:
        table = _read_table(path)
    root = path.parent.resolve() if path is not None else (start or Path.cwd()).resolve()
    if root.is_file():
        root = root.parent
    settings = Settings(config_path=path, root=root)
    settings = _apply(settings, table, str(path) if path else t(CONFIGURATION), root, known_targets)
    if overrides:
        settings = _apply(settings, dict(overrides), t(overrides_from), Path.cwd(), known_targets)
    return settings


def _read_table(path: Path) -> dict[str, Any]:
    try:
        data = tomlcompat.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(t("{path}: configuration file not found", path=path)) from None
    except OSError as exc:
        raise ConfigError(t("{path}: cannot read: {error}", path=path, error=exc.strerror or exc)) from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(t("{path}: not valid UTF-8: {error}", path=path, error=exc)) from exc
    except tomlcompat.TOMLDecodeError as exc:
        raise ConfigError(t("{path}: invalid TOML: {error}", path=path, error=exc)) from exc
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        table = tool.get("cudaport", {}) if isinstance(tool, dict) else {}
        if not isinstance(table, dict):
            raise ConfigError(t("{path}: [tool.cudaport] must be a table", path=path))
        return dict(table)
    return dict(data)


def _apply(
    settings: Settings,
    table: Mapping[str, Any],
    where: str,
    base: Path,
    known_targets: Sequence[str] | Mapping[str, str] | None,
) -> Settings:
    prefix = "tool.cudaport." if where.endswith("pyproject.toml") else ""
    for key in table:
        if key not in _KEYS:
            raise ConfigError(
                t(
                    "{where}: unknown key '{key}'{hint} (known: {known})",
                    where=where,
                    key=prefix + key,
                    hint=did_you_mean(key, _KEYS),
                    known=", ".join(sorted(_KEYS)),
                )
            )

    def strings(key: str) -> tuple[str, ...]:
        value = table[key]
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(t("{where}: '{key}' must be a list of strings", where=where, key=prefix + key))
        return tuple(v.strip() for v in value if v.strip())

    changes: dict[str, Any] = {}
    if "extra-rules" in table:
        changes["extra_rules"] = settings.extra_rules + tuple((base / p).resolve() for p in strings("extra-rules"))
    extra_rules = changes.get("extra_rules", settings.extra_rules)
    # The rule data loads when a code is to be checked (or extra rule files must be read: a broken one is this
    # configuration's error): a run whose results all come from the results cache may never need it.
    known_codes = functools.partial(_known_codes, extra_rules)
    if extra_rules:
        known_codes()
    if "target" in table:
        target = table["target"]
        try:
            ruleset = load_ruleset(changes.get("extra_rules", settings.extra_rules))
        except RuleDataError as exc:
            raise ConfigError(str(exc)) from exc
        names = (
            {k.lower(): v for k, v in known_targets.items()}
            if isinstance(known_targets, Mapping)
            else {t.lower(): t for t in known_targets}
            if known_targets is not None
            else ruleset.target_names()
        )
        name, _, version = target.partition("@") if isinstance(target, str) else ("", "", "")
        canonical = names.get(name.strip().lower())
        if canonical is None:
            unknown = ruleset.unknown_target(name) if isinstance(target, str) else repr(target)
            # --target's mistake is said as report's --target says it; a file's names the file and the key
            raise ConfigError(unknown if where == t(COMMAND_LINE) else f"{where}: '{prefix}target': {unknown}")
        changes["target"] = canonical
        if version.strip():
            try:
                spec = ruleset.parse_target(target)
            except ValueError as exc:
                raise ConfigError(
                    str(exc) if where == t(COMMAND_LINE) else f"{where}: '{prefix}target': {exc}"
                ) from None
            changes["versions"] = {**settings.versions, canonical: spec.version}
            if spec.warning:  # the command line's says it as --target does; a file's names itself
                said = spec.warning if where == t(COMMAND_LINE) else f"{where}: '{prefix}target': {spec.warning}"
                changes["warnings"] = (*settings.warnings, said)
        elif canonical in settings.versions:  # named again without a version: the newest the data knows
            changes["versions"] = {k: v for k, v in settings.versions.items() if k != canonical}
    if "select" in table:
        changes["select"] = _codes(strings("select"), where, prefix + "select", known_codes)
    if "extend-select" in table:
        base_select = changes.get("select", settings.select)
        extra = _codes(strings("extend-select"), where, prefix + "extend-select", known_codes)
        changes["select"] = base_select + extra
    if "ignore" in table:
        changes["ignore"] = settings.ignore + _codes(strings("ignore"), where, prefix + "ignore", known_codes)
    if "exclude" in table:
        changes["exclude"] = strings("exclude")
    if "extend-exclude" in table:
        changes["extend_exclude"] = settings.extend_exclude + strings("extend-exclude")
    for key in ("respect-gitignore", "force-exclude"):
        if key in table:
            value = table[key]
            if not isinstance(value, bool):
                raise ConfigError(t("{where}: '{key}' must be true or false", where=where, key=prefix + key))
            changes[key.replace("-", "_")] = value
    if "severity" in table:
        changes["severity"] = {**settings.severity, **_severities(table["severity"], where, prefix, known_codes)}
    if "max-file-size" in table:
        size = table["max-file-size"]
        if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
            raise ConfigError(
                t("{where}: '{key}' must be a positive number of bytes", where=where, key=prefix + "max-file-size")
            )
        changes["max_file_size"] = size
    if "fail-on" in table:
        try:
            changes["fail_on"] = Difficulty.parse(str(table["fail-on"]))
        except ValueError as exc:
            raise ConfigError(f"{where}: '{prefix}fail-on': {exc}") from None
    if "effort" in table:
        changes["effort"] = _effort(
            settings.effort, table["effort"], where, prefix, changes.get("extra_rules", settings.extra_rules)
        )
    if "fix-style" in table:
        try:
            changes["fix_style"] = FixStyle.parse(str(table["fix-style"]))
        except ValueError as exc:
            raise ConfigError(f"{where}: '{prefix}fix-style': {exc}") from None
    if "compat-header" in table:
        header = table["compat-header"]
        if not isinstance(header, str) or not header.strip() or not header.strip().endswith(_HEADER_SUFFIXES):
            raise ConfigError(
                t(
                    "{where}: '{key}' must be a header file name (.h, .hpp, .cuh)",
                    where=where,
                    key=prefix + "compat-header",
                )
            )
        changes["compat_header"] = (base / header.strip()).resolve()
    if "device-helper" in table:
        helper = table["device-helper"]
        if not isinstance(helper, str) or not _MODULE_FILE.fullmatch(helper.strip()):
            raise ConfigError(
                t(
                    "{where}: '{key}' must be a Python module file name (name.py)",
                    where=where,
                    key=prefix + "device-helper",
                )
            )
        changes["device_helper"] = helper.strip()
    if "lang" in table:
        changes["lang"] = _language(table["lang"], where, prefix + "lang")
    if "cache-dir" in table:
        folder = table["cache-dir"]
        if not isinstance(folder, str) or not folder.strip():
            raise ConfigError(t("{where}: '{key}' must be a folder's path", where=where, key=prefix + "cache-dir"))
        changes["cache_dir"] = (base / folder.strip()).resolve()
    return replace(settings, **changes)


def _language(value: Any, where: str, key: str) -> str:
    """`lang`: a language cudaport has messages in (`zh-CN`, `en`, or a spelling of one: `zh_CN`, `zh`)."""
    chosen = i18n.normalize(value) if isinstance(value, str) else None
    if chosen is None:
        raise ConfigError(
            t(
                "{where}: '{key}' must be one of {known}, not {value}",
                where=where,
                key=key,
                known=", ".join(i18n.LANGUAGES),
                value=repr(value),
            )
        )
    return chosen


def _effort(
    current: Mapping[str, Any], value: Any, where: str, prefix: str, extra_rules: tuple[Path, ...]
) -> dict[str, Any]:
    """The report's effort weights as the configuration changes them, checked against the bundled ones."""
    from ..knowledge.effort import EffortDataError, check_overrides

    try:
        ruleset = load_ruleset(extra_rules)
    except RuleDataError as exc:
        raise ConfigError(str(exc)) from exc
    try:
        return check_overrides(_merged_tables(current, value) if isinstance(value, dict) else value, ruleset)
    except EffortDataError as exc:
        key = f"{prefix}effort" + (f".{exc.key}" if exc.key else "")
        raise ConfigError(f"{where}: '{key}': {exc.reason}") from None


def _merged_tables(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in top.items():
        out[key] = (
            _merged_tables(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
        )
    return out


_HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".cuh")
_MODULE_FILE = re.compile(r"[A-Za-z_]\w*\.py")


def _known_codes(extra_rules: tuple[Path, ...]) -> tuple[str, ...]:
    try:
        return tuple(load_ruleset(extra_rules).rules)
    except RuleDataError as exc:  # a broken extra rule file is a configuration error like any other
        raise ConfigError(str(exc)) from exc


def _codes(values: tuple[str, ...], where: str, key: str, codes: Callable[[], tuple[str, ...]]) -> tuple[str, ...]:
    for value in values:
        if not (value == "ALL" or (value.startswith("CP") and value[2:].isdigit()) or value == "CP"):
            raise ConfigError(
                t(
                    "{where}: '{key}': {value} is not a rule code or prefix (like CP1001 or CP20)",
                    where=where,
                    key=key,
                    value=repr(value),
                )
            )
        known = codes() if value != "ALL" else ()
        if value != "ALL" and not any(code.startswith(value) for code in known):
            raise ConfigError(
                t(
                    "{where}: '{key}': {value} matches no rule{hint} (`cudaport rule --all` lists them)",
                    where=where,
                    key=key,
                    value=repr(value),
                    hint=did_you_mean(value, known),
                )
            )
    return tuple("CP" if v == "ALL" else v for v in values)


def _severities(value: Any, where: str, prefix: str, known: Callable[[], tuple[str, ...]]) -> dict[str, Severity]:
    if not isinstance(value, dict):
        raise ConfigError(
            t("{where}: '{key}' must be a table of rule code = severity", where=where, key=prefix + "severity")
        )
    out: dict[str, Severity] = {}
    for code, level in value.items():
        _codes((code,), where, f"{prefix}severity", known)
        try:
            out[code] = Severity.parse(str(level))
        except ValueError as exc:
            raise ConfigError(f"{where}: '{prefix}severity.{code}': {exc}") from None
    return out
