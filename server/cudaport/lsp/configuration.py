"""Which configuration applies to a document: the editor's options on top of the project's configuration file,
found and read by `config.load_settings`, the one resolver the CLI uses too, with the same file excludes.

Broken configuration never stops the server: the problem is shown once (window/showMessage, naming the file and
key) and the document is analysed with the defaults plus whatever editor options are valid."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import Path

from ..engine.engine import Engine
from ..i18n import t
from ..knowledge.ruleset import RuleDataError, load_ruleset
from ..model.records import field, record
from ..project.config import CONFIG_FILES, ConfigError, Settings, find_config, load_settings
from ..project.files import why_excluded
from ..project.includes import ProjectIndex
from .options import EditorOptions

log = logging.getLogger(__name__)


@record(eq=False)
class Resolved:
    """The settings, engine and editor options for the documents under one configuration."""

    settings: Settings
    engine: Engine
    options: EditorOptions
    token: object = field(default_factory=object)  # identity: documents analysed under another must start over
    _excluded: dict[Path, str | None] = field(default_factory=dict, repr=False)  # asked on every keystroke

    def excluded(self, path: Path) -> str | None:
        """Why the file is none of the project's (a pattern, a build tree, an ignore file), or None."""
        if path not in self._excluded:
            self._excluded[path] = why_excluded(path, self.settings)
        return self._excluded[path]


class Configuration:
    def __init__(self, report: Callable[[str], None]) -> None:
        self._report = report  # shows a configuration problem to the user
        self.initialization = EditorOptions()
        self.workspace = EditorOptions()  # workspace/configuration without a scope, or didChangeConfiguration
        self.per_folder: dict[Path, EditorOptions] = {}
        self.folders: list[Path] = []
        self._config_files: dict[Path, Path | None] = {}  # folder -> nearest configuration file
        self._stamps: dict[Path, int | None] = {}  # configuration file -> modification time when read
        self._resolved: dict[tuple[object, ...], Resolved] = {}
        self._engines: dict[tuple[object, ...], Engine] = {}
        self._shown: set[str] = set()
        # Path.resolve() asks the file system (symbolic links): documents are resolved on every keystroke, so their
        # real paths are remembered until the configuration is looked up afresh.
        self._real_paths: dict[Path, Path] = {}

    # ---- what the editor said -----------------------------------------------------------------------------
    def set_folders(self, folders: Iterable[Path]) -> None:
        self.folders = sorted({f.resolve() for f in folders}, key=lambda p: -len(p.parts))
        self.invalidate()

    def folder_of(self, path: Path | None) -> Path | None:
        if path is None:
            return self.folders[-1] if self.folders else None
        resolved = self._real(path)
        for folder in self.folders:  # deepest first
            if resolved == folder or folder in resolved.parents:
                return folder
        return None

    def options_for(self, path: Path | None) -> EditorOptions:
        options = self.initialization.merged(self.workspace)
        folder = self.folder_of(path)
        if folder is not None and folder in self.per_folder:
            options = options.merged(self.per_folder[folder])
        return options

    def invalidate(self) -> None:
        """Forget every resolved configuration: the next analysis of each document starts over."""
        self._config_files.clear()
        self._real_paths.clear()
        self._stamps.clear()
        self._resolved.clear()
        self._engines.clear()

    def files_changed(self) -> bool:
        """Whether a configuration file was created, edited or removed since it was read (for clients that cannot
        watch files for the server)."""
        for folder, known in list(self._config_files.items()):
            if find_config(folder) != known:
                return True
        return any(_mtime(path) != stamp for path, stamp in self._stamps.items())

    def is_config_file(self, path: Path) -> bool:
        if path.name in CONFIG_FILES:
            return True
        return any(path.resolve() in resolved.settings.extra_rules for resolved in self._resolved.values())

    # ---- resolution ---------------------------------------------------------------------------------------
    def resolve(self, path: Path | None) -> Resolved:
        """The configuration for a document at `path` (None: an untitled buffer)."""
        folder = self.folder_of(path)
        return self._resolve(path.parent if path is not None else (folder or Path.cwd()), folder, path)

    def resolve_directory(self, directory: Path) -> Resolved:
        """The configuration for the files under `directory` (a workspace folder being scanned)."""
        return self._resolve(directory, self.folder_of(directory), directory)

    def _resolve(self, start: Path, folder: Path | None, path: Path | None) -> Resolved:
        options = self.options_for(path)
        config_file = self._config_file(start)
        key = (config_file, start if config_file is None else None, folder, options.cache_key())
        found = self._resolved.get(key)
        if found is not None:
            if found.options != options:  # only editor behaviour changed: the findings still stand
                found = self._resolved[key] = Resolved(found.settings, found.engine, options, found.token)
            return found
        # Without a configuration file the project root (for exclude patterns) is the workspace folder.
        settings = self._settings(start if config_file is not None else (folder or start), folder, options)
        engine_key = (settings.config_path, settings.root, options.cache_key())
        engine = self._engines.get(engine_key)
        if engine is None:
            engine = Engine(settings)
            engine.project = ProjectIndex(engine.ruleset, [*self.folders, settings.root])
            self._engines[engine_key] = engine
        resolved = Resolved(settings, engine, options)
        self._resolved[key] = resolved
        return resolved

    def _config_file(self, start: Path) -> Path | None:
        folder = self._real(start)
        if folder not in self._config_files:
            found = find_config(folder)
            self._config_files[folder] = found
            if found is not None:
                self._stamps.setdefault(found, _mtime(found))
        return self._config_files[folder]

    def _real(self, path: Path) -> Path:
        real = self._real_paths.get(path)
        if real is None:
            if len(self._real_paths) > 4096:
                self._real_paths.clear()
            real = self._real_paths[path] = path.resolve()
        return real

    def _settings(self, start: Path, folder: Path | None, options: EditorOptions) -> Settings:
        base = folder or start
        overrides = options.overrides()
        if "extra-rules" in overrides:
            overrides["extra-rules"] = [str((base / p).resolve()) for p in overrides["extra-rules"]]
        explicit = (base / Path(options.config).expanduser()).resolve() if options.config else None
        try:
            if explicit is not None and not explicit.is_file():
                raise ConfigError(t("{path}: configuration file not found (editor setting 'config')", path=explicit))
            settings = load_settings(start, explicit, overrides, overrides_from=t("editor settings"))
            load_ruleset(settings.extra_rules)  # a broken extra rule file is a configuration problem too
            if settings.config_path is not None:
                self._stamps.setdefault(settings.config_path, _mtime(settings.config_path))
            for warning in settings.warnings:  # as the command line warns: a release past the rule data's
                self.report(t("cudaport: warning: {message}", message=warning))
            return settings
        except (ConfigError, RuleDataError) as exc:
            self.report(t("cudaport: {problem}. Using the default configuration until this is fixed.", problem=exc))
        try:
            settings = load_settings(start, overrides=overrides, overrides_from=t("editor settings"), use_files=False)
            load_ruleset(settings.extra_rules)
            return settings
        except (ConfigError, RuleDataError) as exc:
            self.report(t("cudaport: {problem}. Ignoring the editor settings.", problem=exc))
        return load_settings(start, use_files=False)

    def engines(self) -> list[Engine]:
        return list(self._engines.values())

    def report(self, message: str) -> None:
        log.error("%s", message)
        if message not in self._shown:
            self._shown.add(message)
            self._report(message)

    def forget_reports(self) -> None:
        """After a configuration change, a problem that comes back is shown again."""
        self._shown.clear()


def _mtime(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None
