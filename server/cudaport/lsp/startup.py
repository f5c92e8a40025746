"""The client's `initialize` request, read into the shared store: what the client can do, the position encoding,
the workspace folders, the editor's options and the language of messages. It reads the request as JSON, so the
first diagnostics (cudaport.lsp.prelude) can be served before the protocol library is loaded; the server's own
`initialize` handler finds the store started and keeps it as it is."""

from __future__ import annotations

import logging

from ..i18n import N_, t
from . import language, logs
from .capabilities import ClientCapabilities
from .initialize import InitializeRequest
from .options import parse_options
from .positions import unit_for
from .store import Store

log = logging.getLogger(__name__)


def start(store: Store, log_handler: logs.ClientLogHandler, request: InitializeRequest, encoding: str | None) -> None:
    """Set the store up for the client's session (once: the request is kept as `store.started`, last)."""
    store.unit = unit_for(encoding)
    store.capabilities = ClientCapabilities.of(request.capabilities)
    configuration = store.configuration
    configuration.set_folders(request.folders)
    options, _ = parse_options(request.initialization_options, "initializationOptions")
    configuration.initialization = options
    note = language.apply(options.merged(configuration.workspace).lang, request.locale, starting=True)
    # Once more in the language just chosen: the problems are shown to the user.
    options, problems = parse_options(request.initialization_options, "initializationOptions")
    log_problem = logs.apply_settings(log_handler, options.log_level, options.log_file, configuration.folder_of(None))
    if log_problem is not None:
        problems.append(log_problem)
    for problem in problems:
        configuration.report(f"cudaport: {problem}")
    log.info(
        logs.said(
            N_("cudaport language server for {client}; columns in {unit}; {mode} diagnostics"),
            client=request.client_name or t("an unnamed client"),
            unit=store.unit,
            mode=t("pull") if store.capabilities.pull_diagnostics else t("push"),
        )
    )
    if note is not None:
        log.info(note)
    store.started = request
