"""Code actions: the engine's fix for each finding under the cursor (preferred when it is safe), "ignore this rule
on this line" and "... in this file" (the suppression comments `cudaport check` honours), and
`source.fixAll.cudaport`, which applies what `cudaport fix` would. Every edit names the document version it was
computed for, so an editor never applies it to text that has changed since."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from lsprotocol import types

from .. import comments
from ..models import Finding
from . import edits as byte_edits
from .languages import LanguageProfile, profile
from .positions import to_offset
from .render import as_lsp
from .store import Snapshot

log = logging.getLogger(__name__)

FIX_ALL = "source.fixAll.cudaport"


OPTIONS = types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=True)


def code_actions(snapshot: Snapshot, selection: types.Range, only: Sequence[str] | None) -> list[types.CodeAction]:
    """The quick fixes and suppressions for the findings in `selection`, and fix-all when anything is fixable."""
    if snapshot.skipped is not None:
        return []
    actions: list[types.CodeAction] = []
    if _wanted(only, types.CodeActionKind.QuickFix):
        actions.extend(_quick_fixes(snapshot, selection))
    if _wanted(only, FIX_ALL) and snapshot.document.session.store.any(lambda f: f.fixable):
        action = types.CodeAction(
            title="cudaport: apply all safe fixes",
            kind=FIX_ALL,
            data={"uri": snapshot.uri, "version": snapshot.version},
        )
        if not snapshot.capabilities.lazy_code_action_edits:
            action.edit = fix_all_edit(snapshot)
        actions.append(action)
    return actions


def resolve(snapshot: Snapshot | None, action: types.CodeAction) -> types.CodeAction:
    """codeAction/resolve: fix-all's edit, worked out when the editor is about to apply it."""
    if action.kind == FIX_ALL and snapshot is not None and action.edit is None:
        action.edit = fix_all_edit(snapshot)
    return action


def resolved_uri(action: types.CodeAction) -> str:
    """The document a code action to resolve belongs to (its `data`)."""
    data = action.data if isinstance(action.data, dict) else {}
    return str(data.get("uri", ""))


# ---- quick fixes --------------------------------------------------------------------------------------------
def _quick_fixes(snapshot: Snapshot, selection: types.Range) -> list[types.CodeAction]:
    unit = snapshot.unit
    start = to_offset(snapshot.lines, selection.start, unit)
    end = to_offset(snapshot.lines, selection.end, unit)
    shown = [f for f in snapshot.findings_overlapping(start, end) if snapshot.shown(f)]
    build = snapshot.builder().build
    fixes: list[types.CodeAction] = []
    ignores: list[types.CodeAction] = []
    seen_rules: set[tuple[int, str]] = set()
    for finding in shown:
        diagnostic = as_lsp(build(finding))
        fix = finding.fix
        if fix is not None:
            edits = [byte_edits.minimal(snapshot.data, e.start, e.end, e.text.encode()) for e in fix.edits]
            title = fix.title if fix.is_safe else f"{fix.title} (unsafe: review the result)"
            fixes.append(
                types.CodeAction(
                    title=title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    is_preferred=fix.is_safe,
                    edit=_workspace_edit(snapshot, edits),
                )
            )
        line = snapshot.lines.line_of(finding.start)
        if (line, finding.rule) in seen_rules:
            continue
        seen_rules.add((line, finding.rule))
        for title, edit in _suppressions(snapshot, finding):
            ignores.append(
                types.CodeAction(
                    title=title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    edit=_workspace_edit(snapshot, [edit]),
                )
            )
    return fixes + ignores


def fix_all_edit(snapshot: Snapshot) -> types.WorkspaceEdit:
    assert snapshot.language is not None
    fixed, applied, _ = snapshot.engine.fix_data(snapshot.data, snapshot.language, snapshot.path)
    log.debug("fix-all on %s: %d fixes", snapshot.uri, applied)
    return _workspace_edit(snapshot, byte_edits.difference(snapshot.data, fixed))


def _workspace_edit(snapshot: Snapshot, edits: list[byte_edits.ByteEdit]) -> types.WorkspaceEdit:
    text_edits = byte_edits.text_edits(snapshot.lines, edits, snapshot.unit)
    if snapshot.capabilities.document_changes:
        identifier = types.OptionalVersionedTextDocumentIdentifier(uri=snapshot.uri, version=snapshot.version)
        return types.WorkspaceEdit(
            document_changes=[types.TextDocumentEdit(text_document=identifier, edits=list(text_edits))]
        )
    return types.WorkspaceEdit(changes={snapshot.uri: list(text_edits)})


# ---- suppression comments -----------------------------------------------------------------------------------
def _suppressions(snapshot: Snapshot, finding: Finding) -> list[tuple[str, byte_edits.ByteEdit]]:
    assert snapshot.language is not None
    language_profile = profile(snapshot.language)
    if language_profile.line_comment is None or snapshot.tree is None:
        return []
    out = []
    line_edit = _line_suppression(snapshot, finding, language_profile)
    if line_edit is not None:
        out.append((f"Ignore {finding.rule} on this line", line_edit))
    file_edit = _file_suppression(snapshot, finding.rule, language_profile)
    if file_edit is not None:
        out.append((f"Ignore {finding.rule} in this file", file_edit))
    return out


def _wanted(only: Sequence[types.CodeActionKind | str] | None, kind: str) -> bool:
    """`context.only` filters hierarchically: "source" asks for "source.fixAll.cudaport" too."""
    if not only:
        return True
    return any(kind == wanted or kind.startswith(f"{wanted}.") for wanted in map(str, only))


def _line_suppression(snapshot: Snapshot, finding: Finding, language: LanguageProfile) -> byte_edits.ByteEdit | None:
    """`// cudaport: ignore[CODE]` for the finding's first line, where the engine puts it for `fix --add-ignore`."""
    assert snapshot.tree is not None
    line = snapshot.lines.line_of(finding.start)
    edit = comments.line_directive(
        snapshot.data, snapshot.tree.root_node, snapshot.lines, line, [finding.rule], language, finding.start
    )
    return None if isinstance(edit, str) else edit


def _file_suppression(snapshot: Snapshot, rule: str, language: LanguageProfile) -> byte_edits.ByteEdit | None:
    assert snapshot.tree is not None
    return comments.file_directive(snapshot.data, snapshot.tree.root_node, [rule], language)
