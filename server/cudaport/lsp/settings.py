"""The editor's side of configuration: `initializationOptions`, `workspace/configuration` (pulled at start and
after `workspace/didChangeConfiguration`), workspace folders, and changes to cudaport.toml/pyproject.toml (watched
through the client where it can, by polling their modification times where it cannot). Any change re-analyses
every open document; a changed target changes every finding."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..config import CONFIG_FILES
from ..files import file_kinds
from . import logs
from .documents import uri_path
from .features import register
from .options import EditorOptions, parse_options
from .positions import unit_for

if TYPE_CHECKING:
    from .server import CudaportServer

log = logging.getLogger(__name__)

SECTION = "cudaport"
_POLL_SECONDS = 2.0


class EditorSettings:
    def __init__(self, server: CudaportServer) -> None:
        self.server = server
        self._poller: asyncio.Task[None] | None = None
        register(server, types.INITIALIZE, self.initialize)
        register(server, types.INITIALIZED, self.initialized)
        register(server, types.WORKSPACE_DID_CHANGE_CONFIGURATION, self.did_change_configuration)
        register(server, types.WORKSPACE_DID_CHANGE_WATCHED_FILES, self.did_change_watched_files)
        register(server, types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS, self.did_change_workspace_folders)
        register(server, types.SHUTDOWN, self.shutdown)

    # ---- start-up -----------------------------------------------------------------------------------------
    def initialize(self, params: types.InitializeParams) -> None:
        self.server.unit = unit_for(self.server.workspace.position_encoding)
        configuration = self.server.configuration
        configuration.set_folders(self._folders())
        options, problems = parse_options(params.initialization_options, "initializationOptions")
        configuration.initialization = options
        logs.set_level(self.server.log_handler, options.log_level)
        for problem in problems:
            configuration.report(f"cudaport: {problem}")
        client = params.client_info.name if params.client_info is not None else "an unnamed client"
        log.info(
            "cudaport language server for %s; columns in %s; %s diagnostics",
            client,
            self.server.unit,
            "pull" if self.server.diagnostics.pull_mode else "push",
        )

    async def initialized(self, params: types.InitializedParams) -> None:
        self.server.log_handler.ready()
        await self._register_for_changes()
        if await self._pull_configuration():
            self._changed()
        if not self._watching_files:
            self._poller = asyncio.ensure_future(self._poll_config_files())

    def shutdown(self, params: None) -> None:
        self.server.shutdown_requested = True
        if self._poller is not None:
            self._poller.cancel()

    # ---- registrations ------------------------------------------------------------------------------------
    _watching_files = False

    async def _register_for_changes(self) -> None:
        workspace = self.server.client_capabilities.workspace
        registrations = []
        watched = workspace.did_change_watched_files if workspace is not None else None
        if watched is not None and watched.dynamic_registration:
            watchers = [types.FileSystemWatcher(glob_pattern=f"**/{name}") for name in CONFIG_FILES]
            watchers += [types.FileSystemWatcher(glob_pattern=g) for g in file_kinds().watch_globs()]
            registrations.append(
                types.Registration(
                    id="cudaport-watched-files",
                    method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
                )
            )
        changed = workspace.did_change_configuration if workspace is not None else None
        if changed is not None and changed.dynamic_registration:
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
                self.server.client_register_capability_async(types.RegistrationParams(registrations=registrations)),
                timeout=10,
            )
        except Exception as exc:  # a client that refuses: configuration files are polled instead
            log.warning("the client did not accept cudaport's registrations (%s): polling configuration files", exc)
            return
        self._watching_files = any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in registrations)

    # ---- the editor's settings ----------------------------------------------------------------------------
    async def _pull_configuration(self) -> bool:
        """Ask for the `cudaport` section, globally and per folder; whether anything differs from before."""
        workspace = self.server.client_capabilities.workspace
        if workspace is None or not workspace.configuration:
            return False
        configuration = self.server.configuration
        folders = list(configuration.folders)
        items = [types.ConfigurationItem(section=SECTION)]
        items += [types.ConfigurationItem(scope_uri=folder.as_uri(), section=SECTION) for folder in folders]
        try:
            answer = await asyncio.wait_for(
                self.server.workspace_configuration_async(types.ConfigurationParams(items=items)), timeout=10
            )
        except Exception as exc:
            log.warning("workspace/configuration failed (%s): keeping the current settings", exc)
            return False
        values: list[Any] = list(answer or [])
        before = (configuration.workspace, dict(configuration.per_folder))
        workspace_options, problems = parse_options(values[0] if values else None, "workspace settings")
        per_folder: dict[Path, EditorOptions] = {}
        for folder, value in zip(folders, values[1:], strict=False):
            options, more = parse_options(value, f"settings of {folder}")
            problems += more
            if options._given:
                per_folder[folder] = options
        for problem in problems:
            configuration.report(f"cudaport: {problem}")
        configuration.workspace = workspace_options
        configuration.per_folder = per_folder
        return before != (configuration.workspace, configuration.per_folder)

    async def did_change_configuration(self, params: types.DidChangeConfigurationParams) -> None:
        configuration = self.server.configuration
        workspace = self.server.client_capabilities.workspace
        if workspace is not None and workspace.configuration:
            await self._pull_configuration()
        else:
            options, problems = parse_options(params.settings, "didChangeConfiguration")
            for problem in problems:
                configuration.report(f"cudaport: {problem}")
            configuration.workspace = options
        self._changed()

    def did_change_watched_files(self, params: types.DidChangeWatchedFilesParams) -> None:
        configuration = self.server.configuration
        config_changed = False
        for change in params.changes:
            path = uri_path(change.uri)
            if path is None:
                continue
            if configuration.is_config_file(path):
                config_changed = True
            else:
                self.header_changed(path)
        if config_changed:
            log.info("a configuration file changed: re-checking every open document")
            self._changed()
        else:
            self.server.workspace_diagnostics.workspace_changed()

    def did_change_workspace_folders(self, params: types.DidChangeWorkspaceFoldersParams) -> None:
        self.server.configuration.set_folders(self._folders())
        self._changed()

    def header_changed(self, path: Path) -> None:
        """A portability header (`#define cudaMalloc hipMalloc`) changes what its includers' findings mean."""
        for engine in self.server.configuration.engines():
            if engine.project is not None:
                engine.project.invalidate(path)
        name = path.name.encode()
        for document in self.server.documents:
            if document.language == "c" and name in document.data:
                document.session.context = None
                self.server.diagnostics.changed_elsewhere(document)

    # ---- after any change ---------------------------------------------------------------------------------
    def _changed(self) -> None:
        configuration = self.server.configuration
        configuration.invalidate()
        configuration.forget_reports()
        logs.set_level(self.server.log_handler, configuration.options_for(None).log_level)
        for document in self.server.documents:
            self.server.resolve(document)  # reports a broken configuration now, not at the next keystroke
        self.server.diagnostics.relint_all()
        self.server.workspace_diagnostics.workspace_changed()

    def config_files_may_have_changed(self) -> None:
        """For clients that do not watch files for us: called on saves and by the poller."""
        if self.server.configuration.files_changed():
            log.info("a configuration file changed on disk: re-checking every open document")
            self._changed()

    async def _poll_config_files(self) -> None:
        while True:
            await asyncio.sleep(_POLL_SECONDS)
            try:
                self.config_files_may_have_changed()
            except Exception:
                log.exception("checking configuration files failed")

    def _folders(self) -> list[Path]:
        workspace = self.server.workspace
        folders = [uri_path(folder.uri) for folder in workspace.folders.values()]
        found = [f for f in folders if f is not None]
        if not found and workspace.root_uri:
            root = uri_path(workspace.root_uri)
            if root is not None:
                found.append(root)
        return found
