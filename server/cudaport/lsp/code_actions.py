"""Code actions: the engine's fix for each finding under the cursor (preferred when it is safe), "ignore this rule
on this line" and "... in this file" (the suppression comments `cudaport check` honours), and
`source.fixAll.cudaport`, which applies what `cudaport fix` would. Every edit names the document version it was
computed for, so an editor never applies it to text that has changed since."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from .. import comments
from ..models import Difficulty, Finding
from . import edits as byte_edits
from .diagnostics import as_lsp
from .documents import Document
from .features import register
from .languages import LanguageProfile, profile
from .positions import to_offset

if TYPE_CHECKING:
    from .server import CudaportServer

log = logging.getLogger(__name__)

FIX_ALL = "source.fixAll.cudaport"


class CodeActions:
    def __init__(self, server: CudaportServer) -> None:
        self.server = server
        register(
            server,
            types.TEXT_DOCUMENT_CODE_ACTION,
            self.actions,
            types.CodeActionOptions(
                code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL],
                resolve_provider=True,
            ),
        )
        register(server, types.CODE_ACTION_RESOLVE, self.resolve)

    # ---- client capabilities ------------------------------------------------------------------------------
    def _lazy_edits(self) -> bool:
        text_document = self.server.client_capabilities.text_document
        code_action = text_document.code_action if text_document is not None else None
        if code_action is None or not code_action.data_support or code_action.resolve_support is None:
            return False
        return "edit" in code_action.resolve_support.properties

    def _document_changes(self) -> bool:
        workspace = self.server.client_capabilities.workspace
        edit = workspace.workspace_edit if workspace is not None else None
        return bool(edit is not None and edit.document_changes)

    # ---- requests -----------------------------------------------------------------------------------------
    def actions(self, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        document = self.server.documents.get(params.text_document.uri)
        if document is None:
            return None
        self.server.diagnostics.bring_up_to_date(document)
        if document.skipped is not None:
            return []
        only = params.context.only
        actions: list[types.CodeAction] = []
        if _wanted(only, types.CodeActionKind.QuickFix):
            actions.extend(self._quick_fixes(document, params.range))
        if _wanted(only, FIX_ALL) and any(f.fixable for f in document.findings):
            action = types.CodeAction(
                title="cudaport: apply all safe fixes",
                kind=FIX_ALL,
                data={"uri": document.uri, "version": document.version},
            )
            if not self._lazy_edits():
                action.edit = self._fix_all_edit(document)
            actions.append(action)
        return actions

    def resolve(self, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        document = self.server.documents.get(str(data.get("uri", "")))
        if action.kind == FIX_ALL and document is not None and action.edit is None:
            self.server.diagnostics.bring_up_to_date(document)
            action.edit = self._fix_all_edit(document)
        return action

    # ---- quick fixes --------------------------------------------------------------------------------------
    def _quick_fixes(self, document: Document, selection: types.Range) -> list[types.CodeAction]:
        unit = self.server.unit
        start = to_offset(document.lines, selection.start, unit)
        end = to_offset(document.lines, selection.end, unit)
        resolved = self.server.resolve(document)
        shown = [
            f
            for f in document.findings
            if f.start <= end
            and start <= f.end
            and (resolved.options.show_portable or f.difficulty > Difficulty.PORTABLE)
        ]
        build = self.server.diagnostics.builder(document.lines, resolved).build
        fixes: list[types.CodeAction] = []
        ignores: list[types.CodeAction] = []
        seen_rules: set[tuple[int, str]] = set()
        for finding in shown:
            diagnostic = as_lsp(build(finding))
            fix = finding.fix
            if fix is not None:
                edits = [byte_edits.minimal(document.data, e.start, e.end, e.text.encode()) for e in fix.edits]
                title = fix.title if fix.is_safe else f"{fix.title} (unsafe: review the result)"
                fixes.append(
                    types.CodeAction(
                        title=title,
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[diagnostic],
                        is_preferred=fix.is_safe,
                        edit=self._workspace_edit(document, edits),
                    )
                )
            line = document.lines.line_of(finding.start)
            if (line, finding.rule) in seen_rules:
                continue
            seen_rules.add((line, finding.rule))
            for title, edit in self._suppressions(document, finding):
                ignores.append(
                    types.CodeAction(
                        title=title,
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[diagnostic],
                        edit=self._workspace_edit(document, [edit]),
                    )
                )
        return fixes + ignores

    def _fix_all_edit(self, document: Document) -> types.WorkspaceEdit:
        resolved = self.server.resolve(document)
        assert document.language is not None
        fixed, applied, _ = resolved.engine.fix_data(document.data, document.language, document.path)
        log.debug("fix-all on %s: %d fixes", document.uri, applied)
        return self._workspace_edit(document, byte_edits.difference(document.data, fixed))

    def _workspace_edit(self, document: Document, edits: list[byte_edits.ByteEdit]) -> types.WorkspaceEdit:
        text_edits = byte_edits.text_edits(document.lines, edits, self.server.unit)
        if self._document_changes():
            identifier = types.OptionalVersionedTextDocumentIdentifier(uri=document.uri, version=document.version)
            return types.WorkspaceEdit(
                document_changes=[types.TextDocumentEdit(text_document=identifier, edits=list(text_edits))]
            )
        return types.WorkspaceEdit(changes={document.uri: list(text_edits)})

    # ---- suppression comments -----------------------------------------------------------------------------
    def _suppressions(self, document: Document, finding: Finding) -> list[tuple[str, byte_edits.ByteEdit]]:
        assert document.language is not None
        language_profile = profile(document.language)
        if language_profile.line_comment is None or document.tree is None:
            return []
        out = []
        line_edit = _line_suppression(document, finding, language_profile)
        if line_edit is not None:
            out.append((f"Ignore {finding.rule} on this line", line_edit))
        file_edit = _file_suppression(document, finding.rule, language_profile)
        if file_edit is not None:
            out.append((f"Ignore {finding.rule} in this file", file_edit))
        return out


def _wanted(only: Sequence[types.CodeActionKind | str] | None, kind: str) -> bool:
    """`context.only` filters hierarchically: "source" asks for "source.fixAll.cudaport" too."""
    if not only:
        return True
    return any(kind == wanted or kind.startswith(f"{wanted}.") for wanted in map(str, only))


def _line_suppression(document: Document, finding: Finding, language: LanguageProfile) -> byte_edits.ByteEdit | None:
    """`// cudaport: ignore[CODE]` for the finding's first line, where the engine puts it for `fix --add-ignore`."""
    assert document.tree is not None
    line = document.lines.line_of(finding.start)
    edit = comments.line_directive(
        document.data, document.tree.root_node, document.lines, line, [finding.rule], language, finding.start
    )
    return None if isinstance(edit, str) else edit


def _file_suppression(document: Document, rule: str, language: LanguageProfile) -> byte_edits.ByteEdit | None:
    assert document.tree is not None
    return comments.file_directive(document.data, document.tree.root_node, [rule], language)
