"""The editor's settings for cudaport, typed and checked.

They arrive as `initializationOptions`, as the `cudaport` section of `workspace/configuration` (globally and per
workspace folder) and in `workspace/didChangeConfiguration`. Keys are camelCase as editors write them; the
configuration-file spelling (`extend-select`) is accepted too. Settings that configuration files also have
(target, select, ...) override the project's cudaport.toml/pyproject.toml, like command-line options do; a key
left out keeps the file's value. A bad value is reported (naming the key) and ignored, never fatal."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..i18n import normalize, t
from ..model.findings import Severity
from ..model.records import field, fields, record, replace

LOG_LEVELS = ("error", "warning", "info", "debug")


@record(frozen=True)
class EditorOptions:
    # Overrides of the configuration file (None: keep the file's value).
    target: str | None = None
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    severity: Mapping[str, str] | None = None
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] | None = None
    extra_rules: tuple[str, ...] | None = None
    max_file_size: int | None = None
    config: str | None = None  # an explicit cudaport.toml/pyproject.toml instead of the nearest one
    # Editor behaviour.
    show_portable: bool = True  # portable findings as hints
    debounce: int = 150  # ms between the last keystroke and re-analysis (push diagnostics)
    incremental: bool = True  # re-analyse only what an edit touched (off: the whole file every time)
    full_check_after_idle: int = 2000  # ms of quiet after incremental updates before a whole-file check; 0 = never
    log_level: str = "info"
    run: str = "onType"  # "onType": diagnostics as the user types; "onSave": only for the text last saved
    # The language of the server's messages: "zh-CN", "en", or "" to follow the client's locale (lsp/language.py).
    lang: str | None = None
    # Code actions: source.fixAll.cudaport, the per-finding fixes (rename, dual-stack), the suppression comments.
    fix_all: bool = True
    fix_actions: bool = True
    ignore_comment_actions: bool = True
    # A file the server writes its log to as well, at logLevel (relative: to the workspace folder); None: none.
    log_file: str | None = None
    _given: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    def overrides(self) -> dict[str, Any]:
        """The configuration-file keys these options override, for config.load_settings."""
        out: dict[str, Any] = {}
        for name, key in _FILE_KEYS.items():
            value = getattr(self, name)
            if value is None:
                continue
            out[key] = dict(value) if isinstance(value, Mapping) else list(value) if isinstance(value, tuple) else value
        return out

    def merged(self, other: EditorOptions) -> EditorOptions:
        """These options with every key that `other` was given replaced by its value."""
        return replace(self, **{name: getattr(other, name) for name in other._given}, _given=self._given | other._given)

    def cache_key(self) -> tuple[Any, ...]:
        return (*tuple(sorted((k, repr(v)) for k, v in self.overrides().items())), self.config)


_FILE_KEYS = {
    "target": "target",
    "select": "select",
    "extend_select": "extend-select",
    "ignore": "ignore",
    "severity": "severity",
    "exclude": "exclude",
    "extend_exclude": "extend-exclude",
    "extra_rules": "extra-rules",
    "max_file_size": "max-file-size",
}
_FIELDS = {f.name for f in fields(EditorOptions) if not f.name.startswith("_")}
_ALIASES = {name.replace("_", ""): name for name in _FIELDS} | {
    "configfile": "config",
    "configuration": "config",
    "fullcheckdelay": "full_check_after_idle",
    "language": "lang",
    "logpath": "log_file",
}


def _normalise(key: str) -> str:
    return key.replace("-", "").replace("_", "").lower()


def unwrap(raw: Any) -> Any:
    """Editors nest the section differently: `{"cudaport": {...}}`, `{"settings": {...}}` or the options themselves."""
    while isinstance(raw, Mapping):
        for wrapper in ("cudaport", "settings"):
            inner = raw.get(wrapper)
            if isinstance(inner, Mapping) and len(raw) == 1:
                raw = inner
                break
        else:
            return raw
    return raw


def parse_options(raw: Any, where: str) -> tuple[EditorOptions, list[str]]:
    """Options from an editor's JSON object; also the problems found, each naming `where` and the key."""
    problems: list[str] = []
    raw = unwrap(raw)
    if raw is None:
        return EditorOptions(), problems
    if not isinstance(raw, Mapping):
        return EditorOptions(), [
            t("{where}: the cudaport settings must be an object, not {kind}", where=where, kind=type(raw).__name__)
        ]
    values: dict[str, Any] = {}
    for key, value in raw.items():
        name = _ALIASES.get(_normalise(str(key)))
        if name is None:
            known = ", ".join(sorted(_camel(n) for n in _FIELDS))
            problems.append(t("{where}: unknown setting '{key}' (known: {known})", where=where, key=key, known=known))
            continue
        if value is None:
            continue  # an editor's way of saying "not set"
        try:
            values[name] = _CHECKS[name](value)
        except (TypeError, ValueError) as exc:
            problems.append(t("{where}: '{key}' {problem}", where=where, key=_camel(name), problem=exc))
    return EditorOptions(**values, _given=frozenset(values)), problems


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [part for part in value.split(",")]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError(t("must be a list of strings"))
    return tuple(v.strip() for v in value if v.strip())


def _string(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise TypeError(t("must be a non-empty string"))
    return value.strip()


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(t("must be true or false"))
    return value


def _milliseconds(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0 or value > 600_000:
        raise ValueError(t("must be a number of milliseconds between 0 and 600000"))
    return int(value)


def _size(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(t("must be a positive number of bytes"))
    return value


def _severities(value: Any) -> Mapping[str, str]:
    if not isinstance(value, Mapping):
        raise TypeError(t("must be an object of rule code or prefix -> severity"))
    out: dict[str, str] = {}
    for code, level in value.items():
        if not isinstance(level, str):
            raise TypeError(t("'{code}' must be a severity name", code=code))
        Severity.parse(level)  # raises ValueError naming the allowed levels
        out[str(code)] = level
    return out


RUN_MODES = ("onType", "onSave")


def _run(value: Any) -> str:
    for mode in RUN_MODES:
        if isinstance(value, str) and value.replace("_", "").lower() == mode.lower():
            return mode
    raise ValueError(t("must be one of {names}", names=", ".join(RUN_MODES)))


def _log_level(value: Any) -> str:
    level = str(value).lower()
    if level == "warn":
        level = "warning"
    if level not in LOG_LEVELS:
        raise ValueError(t("must be one of {names}", names=", ".join(LOG_LEVELS)))
    return level


def _optional_path(value: Any) -> str | None:
    """A path, or nothing: an empty setting (the editor's default) clears what an earlier message set."""
    if isinstance(value, str) and not value.strip():
        return None
    return _string(value)


def _target(value: Any) -> str | None:
    """A target name, or nothing: an empty setting (the editor's default) leaves the project's configuration in
    charge, as leaving `--target` out does on the command line."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return _string(value)


def _lang(value: Any) -> str:
    """A language cudaport speaks, "" (follow the client's locale), or another well-formed language tag: an editor
    that sends its display language (Japanese, say) gets English, as a client whose locale is "ja" does."""
    if not isinstance(value, str):
        raise TypeError(t('must be a language such as zh-CN or en, or "" to follow the editor'))
    tag = value.strip()
    if not tag:
        return ""
    known = normalize(tag)
    if known is not None:
        return known
    if not _TAG.fullmatch(tag):
        raise ValueError(t('must be a language such as zh-CN or en, or "" to follow the editor'))
    return tag


_TAG = re.compile(r"[A-Za-z]{1,8}([-_][A-Za-z0-9]{1,8})*(\.[A-Za-z0-9-]+)?(@[A-Za-z0-9]+)?")


_CHECKS: dict[str, Any] = {
    "target": _target,
    "select": _strings,
    "extend_select": _strings,
    "ignore": _strings,
    "severity": _severities,
    "exclude": _strings,
    "extend_exclude": _strings,
    "extra_rules": _strings,
    "max_file_size": _size,
    "config": _optional_path,
    "show_portable": _boolean,
    "debounce": _milliseconds,
    "incremental": _boolean,
    "full_check_after_idle": _milliseconds,
    "log_level": _log_level,
    "run": _run,
    "lang": _lang,
    "fix_all": _boolean,
    "fix_actions": _boolean,
    "ignore_comment_actions": _boolean,
    "log_file": _optional_path,
}
