"""What the client can do, read once from its `initialize` request into plain answers (as ruff's server resolves
its client capabilities): features ask `capabilities.pull_diagnostics`, not the nested optional structure."""

from __future__ import annotations

from typing import Any

from ..model.records import record


@record(frozen=True, slots=True)
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
    def of(cls, capabilities: Any) -> ClientCapabilities:
        """From the `capabilities` of the client's initialize request, as JSON (camelCase keys)."""
        text_document = _section(capabilities, "textDocument")
        workspace = _section(capabilities, "workspace")
        window = _section(capabilities, "window")
        publish = _section(text_document, "publishDiagnostics")
        formats = _section(text_document, "hover").get("contentFormat")
        code_action = _section(text_document, "codeAction")
        resolvable = _section(code_action, "resolveSupport").get("properties")
        edit = _section(workspace, "workspaceEdit")
        operations = edit.get("resourceOperations")
        versioned = bool(edit.get("documentChanges"))
        return cls(
            pull_diagnostics=isinstance(text_document.get("diagnostic"), dict),
            diagnostic_refresh=bool(_section(workspace, "diagnostics").get("refreshSupport")),
            code_descriptions=publish.get("codeDescriptionSupport") is not False,
            markdown_hover=not formats or "markdown" in formats,
            lazy_code_action_edits=bool(
                code_action.get("dataSupport") and isinstance(resolvable, list) and "edit" in resolvable
            ),
            document_changes=versioned,
            create_files=versioned and isinstance(operations, list) and "create" in operations,
            change_annotations=versioned and bool(edit.get("changeAnnotationSupport")),
            work_done_progress=bool(window.get("workDoneProgress")),
            configuration=bool(workspace.get("configuration")),
            watched_files_registration=bool(_section(workspace, "didChangeWatchedFiles").get("dynamicRegistration")),
            configuration_registration=bool(_section(workspace, "didChangeConfiguration").get("dynamicRegistration")),
        )


def _section(parent: Any, key: str) -> dict[str, Any]:
    """A nested capability object; empty when absent or not an object (a client's mistake is no capability)."""
    value = parent.get(key) if isinstance(parent, dict) else None
    return value if isinstance(value, dict) else {}
