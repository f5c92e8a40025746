"""What the client can do, read once from its `initialize` request into plain answers (as ruff's server resolves
its client capabilities): features ask `capabilities.pull_diagnostics`, not the nested optional structure."""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types


@dataclass(frozen=True, slots=True)
class ClientCapabilities:
    pull_diagnostics: bool = False  # textDocument/diagnostic: the client asks; otherwise the server publishes
    diagnostic_refresh: bool = False  # workspace/diagnostic/refresh: the server may ask a pull client to pull again
    code_descriptions: bool = True  # a diagnostic's codeDescription link is shown
    markdown_hover: bool = True
    lazy_code_action_edits: bool = False  # codeAction/resolve fills in `edit`
    document_changes: bool = False  # versioned TextDocumentEdits in a WorkspaceEdit
    create_files: bool = False  # CreateFile in a WorkspaceEdit's documentChanges (a dual-stack fix's new header)
    change_annotations: bool = False  # edits that ask for confirmation (the refactor preview)
    work_done_progress: bool = False  # the server may create progress tokens
    configuration: bool = False  # workspace/configuration
    watched_files_registration: bool = False  # didChangeWatchedFiles can be registered dynamically
    configuration_registration: bool = False  # didChangeConfiguration can be registered dynamically

    @classmethod
    def of(cls, capabilities: types.ClientCapabilities) -> ClientCapabilities:
        text_document = capabilities.text_document
        workspace = capabilities.workspace
        window = capabilities.window
        diagnostics = workspace.diagnostics if workspace is not None else None
        publish = text_document.publish_diagnostics if text_document is not None else None
        hover = text_document.hover if text_document is not None else None
        formats = hover.content_format if hover is not None else None
        code_action = text_document.code_action if text_document is not None else None
        edit = workspace.workspace_edit if workspace is not None else None
        watched = workspace.did_change_watched_files if workspace is not None else None
        changed = workspace.did_change_configuration if workspace is not None else None
        return cls(
            pull_diagnostics=text_document is not None and text_document.diagnostic is not None,
            diagnostic_refresh=bool(diagnostics is not None and diagnostics.refresh_support),
            code_descriptions=publish is None or publish.code_description_support is not False,
            markdown_hover=not formats or types.MarkupKind.Markdown in formats,
            lazy_code_action_edits=bool(
                code_action is not None
                and code_action.data_support
                and code_action.resolve_support is not None
                and "edit" in code_action.resolve_support.properties
            ),
            document_changes=bool(edit is not None and edit.document_changes),
            create_files=bool(
                edit is not None
                and edit.document_changes
                and edit.resource_operations
                and types.ResourceOperationKind.Create in edit.resource_operations
            ),
            change_annotations=bool(edit is not None and edit.document_changes and edit.change_annotation_support),
            work_done_progress=bool(window is not None and window.work_done_progress),
            configuration=bool(workspace is not None and workspace.configuration),
            watched_files_registration=bool(watched is not None and watched.dynamic_registration),
            configuration_registration=bool(changed is not None and changed.dynamic_registration),
        )
