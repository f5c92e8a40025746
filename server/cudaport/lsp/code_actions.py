"""Code actions: the engine's fix for each finding under the cursor (preferred when it is safe), "ignore this rule
on this line" and "... in this file" (the suppression comments `cudaport check` honours), and
`source.fixAll.cudaport`, which applies what `cudaport fix` would. Every edit names the document version it was
computed for, so an editor never applies it to text that has changed since."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from ..models import Difficulty, Finding
from ..suppress import directive
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
_LINE_DIRECTIVE = re.compile(rb"cudaport:[ \t]*ignore[ \t]*\[([^\]\n]*)\]")
_FILE_DIRECTIVE = re.compile(rb"cudaport:[ \t]*ignore-file[ \t]*\[([^\]\n]*)\]")
_PREAMBLE = re.compile(rb"#!|#[ \t]*-\*-|#[ \t]*(?:vim?|ex):|#.*coding[:=]")  # shebang and encoding lines stay first


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


def _in_comment(document: Document, offset: int) -> bool:
    assert document.tree is not None
    node = document.tree.root_node.descendant_for_byte_range(offset, offset + 1)
    return node is not None and node.type == "comment"


def _line_suppression(document: Document, finding: Finding, language: LanguageProfile) -> byte_edits.ByteEdit | None:
    """`// cudaport: ignore[CODE]` on the finding's first line, where it cannot change what the code means."""
    assert document.tree is not None and language.line_comment is not None
    lines = document.lines
    data = document.data
    line = lines.line_of(finding.start)
    line_start, line_end = lines.line_start(line), lines.line_end(line)
    text = data[line_start:line_end]
    existing = _LINE_DIRECTIVE.search(text)
    if existing is not None and _in_comment(document, line_start + existing.start()):
        codes = existing.group(1).strip()
        position = line_start + existing.end(1)
        return position, position, (f", {finding.rule}" if codes else finding.rule).encode()
    content_end = line_start + len(text.rstrip())
    line_comment = directive([finding.rule], language.line_comment).encode()
    block = language.block_comment
    block_comment = (
        f"{block[0]} {directive([finding.rule], '').strip()} {block[1]}".encode() if block is not None else None
    )
    node = document.tree.root_node.descendant_for_byte_range(content_end - 1, content_end)
    if text.rstrip().endswith(b"\\"):
        # A macro body continues on the next line: a line comment would swallow it; a block comment fits
        # (but not inside a string that the backslash continues).
        if block_comment is None or (node is not None and node.type in language.literals and node.type != "comment"):
            return None
        position = content_end - 1
        return position, position, block_comment + b" "
    if node is not None and node.type in language.literals:
        while node.parent is not None and node.parent.type in language.literals:
            node = node.parent
        if node.start_byte < line_start or node.start_byte < finding.start:
            return None  # the line ends inside something that began earlier: no safe place on it
        newline = data.find(b"\n", line_start)
        if node.end_byte > (len(data) if newline == -1 else newline) or node.type != "comment":
            # A comment or string that goes on past this line (or a string closing it): a block comment before it.
            if block_comment is None:
                return None
            return node.start_byte, node.start_byte, block_comment + b" "
        # The line ends with a comment of its own: the directive goes in front of it.
        return node.start_byte, node.start_byte, line_comment + b" "
    return content_end, content_end, b"  " + line_comment


def _file_suppression(document: Document, rule: str, language: LanguageProfile) -> byte_edits.ByteEdit | None:
    assert language.line_comment is not None
    data = document.data
    for match in _FILE_DIRECTIVE.finditer(data):
        if _in_comment(document, match.start()):
            codes = match.group(1).strip()
            position = match.end(1)
            return position, position, (f", {rule}" if codes else rule).encode()
    newline = b"\r\n" if b"\r\n" in data[:4096] else b"\n"
    position = 0
    if language.line_comment == "#":
        for _ in range(2):  # a shebang and an encoding declaration must stay on the first two lines
            if _PREAMBLE.match(data, position):
                end = data.find(b"\n", position)
                position = len(data) if end == -1 else end + 1
    text = f"{language.line_comment} cudaport: ignore-file[{rule}]".encode() + newline
    if position == len(data) and data and not data.endswith(b"\n"):
        text = newline + text
    return position, position, text
