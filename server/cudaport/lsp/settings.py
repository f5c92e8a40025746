"""The editor's side of configuration: `initializationOptions`, `workspace/configuration` (pulled at start and
after `workspace/didChangeConfiguration`), workspace folders, and changes to cudaport.toml/pyproject.toml (watched
through the client where it can, by polling their modification times where it cannot). Any change re-analyses
every open document; a changed target changes every finding."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from lsprotocol import types

from ..i18n import N_, t
from ..knowledge.filekinds import file_kinds
from ..model import folders
from ..project.config import CONFIG_FILES
from . import language, logs, startup
from .client import Client
from .diagnostics import Diagnostics
from .documents import uri_path
from .initialize import InitializeRequest
from .options import EditorOptions, parse_options
from .store import Store
from .workspace_diagnostics import WorkspaceDiagnostics

log = logging.getLogger(__name__)

SECTION = "cudaport"
_POLL_SECONDS = 2.0


class EditorSettings:
    """The configuration as the editor changes it. A change re-checks every open document (through
    `diagnostics`) and wakes held workspace-diagnostic requests (`workspace`)."""

    def __init__(
        self,
        store: Store,
        client: Client,
        diagnostics: Diagnostics,
        workspace: WorkspaceDiagnostics,
        log_handler: logs.ClientLogHandler,
    ) -> None:
        self.store = store
        self.log_handler = log_handler
        self.client = client
        self.diagnostics = diagnostics
        self.workspace = workspace
        self._poller: asyncio.Task[None] | None = None

    # ---- start-up -----------------------------------------------------------------------------------------
    def initialize(self, request: InitializeRequest, encoding: str | None) -> None:
        """The client's initialize request (read into the store already when the first diagnostics were served
        before the server was up: the store is kept as it is)."""
        if self.store.started is None:
            startup.start(self.store, self.log_handler, request, encoding)

    # ---- the language of messages -------------------------------------------------------------------------
    def _apply_language(self) -> bool:
        """Speak the language the settings now ask for; whether it changed (every finding is then written anew)."""
        configuration = self.store.configuration
        started = self.store.started
        setting = configuration.initialization.merged(configuration.workspace).lang
        note = language.apply(setting, started.locale if started is not None else None)
        if note is not None:
            log.info(note)
        return note is not None

    async def initialized(self) -> None:
        self.log_handler.ready()
        await self._register_for_changes()
        if await self._pull_configuration():
            self._changed()
        if not self._watching_files:
            self._poller = asyncio.ensure_future(self._poll_config_files())

    def shutdown(self) -> None:
        self.store.shutdown_requested = True
        if self._poller is not None:
            self._poller.cancel()

    # ---- registrations ------------------------------------------------------------------------------------
    _watching_files = False

    async def _register_for_changes(self) -> None:
        capabilities = self.store.capabilities
        registrations = []
        if capabilities.watched_files_registration:
            watchers = [types.FileSystemWatcher(glob_pattern=f"**/{name}") for name in CONFIG_FILES]
            watchers += [types.FileSystemWatcher(glob_pattern=g) for g in file_kinds().watch_globs()]
            registrations.append(
                types.Registration(
                    id="cudaport-watched-files",
                    method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
                )
            )
        if capabilities.configuration_registration:
            registrations.append(
                types.Registration(
                    id="cudaport-configuration",
                    method=types.WORKSPACE_DID_CHANGE_CONFIGURATION,
                    register_options=types.DidChangeConfigurationRegistrationOptions(section=SECTION),
                )
            )
        if not registrations:
            return
        try:
            await asyncio.wait_for(
                self.client.register(types.RegistrationParams(registrations=registrations)),
                timeout=10,
            )
        except Exception as exc:  # a client that refuses: configuration files are polled instead
            log.warning(
                logs.said(
                    N_("the client did not accept cudaport's registrations ({error}): polling configuration files"),
                    error=exc,
                )
            )
            return
        self._watching_files = any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in registrations)

    # ---- the editor's settings ----------------------------------------------------------------------------
    async def _pull_configuration(self) -> bool:
        """Ask for the `cudaport` section, globally and per folder; whether anything differs from before."""
        if not self.store.capabilities.configuration:
            return False
        configuration = self.store.configuration
        folders = list(configuration.folders)
        items = [types.ConfigurationItem(section=SECTION)]
        items += [types.ConfigurationItem(scope_uri=folder.as_uri(), section=SECTION) for folder in folders]
        try:
            answer = await asyncio.wait_for(
                self.client.configuration(types.ConfigurationParams(items=items)), timeout=10
            )
        except Exception as exc:
            log.warning(
                logs.said(N_("workspace/configuration failed ({error}): keeping the current settings"), error=exc)
            )
            return False
        values: list[Any] = list(answer or [])
        before = (configuration.workspace, dict(configuration.per_folder))
        configuration.workspace, _ = parse_options(values[0] if values else None, "")
        self._apply_language()  # the problems below are shown in the language the settings now ask for
        workspace_options, problems = parse_options(values[0] if values else None, t("workspace settings"))
        per_folder: dict[Path, EditorOptions] = {}
        for folder, value in zip(folders, values[1:], strict=False):
            options, more = parse_options(value, t("settings of {folder}", folder=folder))
            problems += more
            if options._given:
                per_folder[folder] = options
        for problem in problems:
            configuration.report(f"cudaport: {problem}")
        configuration.workspace = workspace_options
        configuration.per_folder = per_folder
        return before != (configuration.workspace, configuration.per_folder)

    async def did_change_configuration(self, params: types.DidChangeConfigurationParams) -> None:
        configuration = self.store.configuration
        if self.store.capabilities.configuration:
            await self._pull_configuration()
        else:
            options, problems = parse_options(params.settings, "didChangeConfiguration")
            configuration.workspace = options
            if self._apply_language():
                options, problems = parse_options(params.settings, "didChangeConfiguration")
            for problem in problems:
                configuration.report(f"cudaport: {problem}")
        self._changed()

    def did_change_watched_files(self, params: types.DidChangeWatchedFilesParams) -> None:
        configuration = self.store.configuration
        config_changed = False
        folders.forget()  # a file created or deleted changes what the folders above the documents hold
        for change in params.changes:
            path = uri_path(change.uri)
            if path is None:
                continue
            if configuration.is_config_file(path):
                config_changed = True
            else:
                self.header_changed(path)
        if config_changed:
            log.info(logs.said(N_("a configuration file changed: re-checking every open document")))
            self._changed()
        else:
            self.workspace.workspace_changed()

    def workspace_folders_changed(self, folders: list[Path]) -> None:
        self.store.configuration.set_folders(folders)
        self._changed()

    def header_changed(self, path: Path) -> None:
        """A portability header (`#define cudaMalloc hipMalloc`) changes what its includers' findings mean."""
        for engine in self.store.configuration.engines():
            if engine.project is not None:
                engine.project.invalidate(path)
        name = path.name.encode()
        for document in self.store.documents:
            if document.language == "c" and name in document.data:
                document.session.context = None
                self.diagnostics.changed_elsewhere(document)

    # ---- after any change ---------------------------------------------------------------------------------
    def _changed(self) -> None:
        configuration = self.store.configuration
        self._apply_language()  # findings carry their messages: the re-check below writes them anew
        configuration.invalidate()
        configuration.forget_reports()
        options = configuration.options_for(None)
        problem = logs.apply_settings(
            self.log_handler, options.log_level, options.log_file, configuration.folder_of(None)
        )
        if problem is not None:
            configuration.report(f"cudaport: {problem}")
        for document in self.store.documents:
            self.store.resolve(document)  # reports a broken configuration now, not at the next keystroke
        self.diagnostics.relint_all()
        self.workspace.workspace_changed()

    def config_files_may_have_changed(self) -> None:
        """For clients that do not watch files for us: called on saves and by the poller."""
        if self.store.configuration.files_changed():
            log.info(logs.said(N_("a configuration file changed on disk: re-checking every open document")))
            self._changed()

    async def _poll_config_files(self) -> None:
        while True:
            await asyncio.sleep(_POLL_SECONDS)
            try:
                self.config_files_may_have_changed()
            except Exception:
                log.exception(logs.said(N_("checking configuration files failed")))
