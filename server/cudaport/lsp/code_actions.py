"""Code actions: the engine's fix for each finding under the cursor (preferred when it is safe), "ignore this rule
on this line" and "... in this file" (the suppression comments `cudaport check` honours), and
`source.fixAll.cudaport`, which applies what `cudaport fix` would. Every edit names the document version it was
computed for, so an editor never applies it to text that has changed since."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from lsprotocol import types
from pygls.uris import from_fs_path

from ..analyzers.common import comments
from ..engine import fixing
from ..i18n import t
from ..model.findings import CompatEntry, Finding, Fix
from ..model.records import record
from ..model.source import LineIndex, SourceFile
from ..rewrite import dualstack
from . import edits as byte_edits
from .languages import LanguageProfile, profile
from .positions import to_offset
from .render import as_lsp
from .store import Snapshot

log = logging.getLogger(__name__)

FIX_ALL = "source.fixAll.cudaport"


OPTIONS = types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=True)


def code_actions(snapshot: Snapshot, selection: types.Range, only: Sequence[str] | None) -> list[types.CodeAction]:
    """The quick fixes and suppressions for the findings in `selection`, and fix-all when anything is fixable; each
    kind only while the editor's options (fixActions, ignoreCommentActions, fixAll) leave it on."""
    if snapshot.skipped is not None:
        return []
    actions: list[types.CodeAction] = []
    options = snapshot.options
    if _wanted(only, types.CodeActionKind.QuickFix) and (options.fix_actions or options.ignore_comment_actions):
        actions.extend(_quick_fixes(snapshot, selection))
    if options.fix_all and _wanted(only, FIX_ALL) and snapshot.document.session.store.any(lambda f: f.fixable):
        action = types.CodeAction(
            title=t("cudaport: apply all safe fixes"),
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
    with_fixes, with_ignores = snapshot.options.fix_actions, snapshot.options.ignore_comment_actions
    build = snapshot.builder().build
    fixes: list[types.CodeAction] = []
    ignores: list[types.CodeAction] = []
    seen_rules: set[tuple[int, str]] = set()
    for finding in shown:
        diagnostic = as_lsp(build(finding))
        fix = finding.fix if with_fixes else None
        if fix is not None and _breaks_alone(snapshot, fix):
            fix = None  # applied alone, the result would not be the same program (fix-all applies it with the rest)
        if fix is not None:
            edits = [byte_edits.minimal(snapshot.data, e.start, e.end, e.text.encode()) for e in fix.edits]
            title = fix.title if fix.is_safe else t("{title} (unsafe: review the result)", title=fix.title)
            fixes.append(
                types.CodeAction(
                    title=title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    is_preferred=fix.is_safe,
                    edit=_workspace_edit(snapshot, edits),
                )
            )
        dual = _dual_action(snapshot, finding, diagnostic) if with_fixes else None
        if dual is not None:
            fixes.append(dual)
        line = snapshot.lines.line_of(finding.start)
        if not with_ignores or (line, finding.rule) in seen_rules:
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


def _breaks_alone(snapshot: Snapshot, fix: Fix) -> bool:
    """A quick fix is checked whole, as `fix` checks its result: one that renames a name the program also writes
    elsewhere (an environment variable set on one line and read on another) is offered by fix-all only."""
    if snapshot.tree is None or snapshot.language is None:
        return False
    reason = snapshot.engine.judge_for(snapshot.language).judge_fix(snapshot.data, snapshot.tree, fix)
    if reason is not None:
        log.debug("quick fix %r not offered: %s", fix.title, reason)
    return reason is not None


def fix_all_edit(snapshot: Snapshot) -> types.WorkspaceEdit:
    assert snapshot.language is not None
    plan = fixing.plan_fix(snapshot.engine, snapshot.data, snapshot.language, snapshot.path)
    log.debug("fix-all on %s: %d fixes", snapshot.uri, plan.applied)
    edits = byte_edits.difference(snapshot.data, plan.data)
    if plan.compat:  # fix-style = "dual-stack": the portability header or helper module changes too
        extra = _support_edits(snapshot, plan.compat)
        if extra is not None:
            return _workspace_edit(snapshot, edits, extra)
    return _workspace_edit(snapshot, edits)


def _workspace_edit(
    snapshot: Snapshot, edits: list[byte_edits.ByteEdit], extra: list[_SupportEdit] | None = None
) -> types.WorkspaceEdit:
    text_edits = byte_edits.text_edits(snapshot.lines, edits, snapshot.unit)
    extra = extra or []
    if snapshot.capabilities.document_changes:
        identifier = types.OptionalVersionedTextDocumentIdentifier(uri=snapshot.uri, version=snapshot.version)
        changes: list[types.TextDocumentEdit | types.CreateFile] = []
        for support in extra:
            if support.create:
                changes.append(types.CreateFile(uri=support.uri, options=types.CreateFileOptions(overwrite=False)))
            support_id = types.OptionalVersionedTextDocumentIdentifier(uri=support.uri, version=None)
            changes.append(types.TextDocumentEdit(text_document=support_id, edits=list(support.edits)))
        changes.append(types.TextDocumentEdit(text_document=identifier, edits=list(text_edits)))
        return types.WorkspaceEdit(document_changes=list(changes))
    changes_by_uri: dict[str, list[types.TextEdit]] = {snapshot.uri: list(text_edits)}
    for support in extra:
        changes_by_uri[support.uri] = list(support.edits)
    return types.WorkspaceEdit(changes=changes_by_uri)


# ---- dual-stack fixes: the file keeps CUDA's names, the portability header or helper module changes -------------
@record
class _SupportEdit:
    """The edits of a generated file (the portability header, the Python helper module) in a workspace edit."""

    uri: str
    edits: list[types.TextEdit]
    create: bool = False


_START = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))


def _dual_action(snapshot: Snapshot, finding: Finding, diagnostic: types.Diagnostic) -> types.CodeAction | None:
    """The dual-stack fix beside the rename: this file's edits and the generated file's."""
    dual = finding.dual
    if dual is None or not dual.is_safe or dual is finding.fix:
        return None  # none, or the same edit as the rename (a cast both compilers accept)
    extra = _support_edits(snapshot, list(dual.compat)) if dual.compat else []
    if extra is None:
        return None
    edits = [byte_edits.minimal(snapshot.data, e.start, e.end, e.text.encode()) for e in dual.edits]
    return types.CodeAction(
        title=dual.title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        is_preferred=False,
        edit=_workspace_edit(snapshot, edits, extra),
    )


def _support_edits(snapshot: Snapshot, compat: list[CompatEntry]) -> list[_SupportEdit] | None:
    """The edits that create or extend the portability header or helper module for `compat` (as it is on disk);
    None when the client cannot make them (a new file without CreateFile) or the file lies outside the project."""
    path = snapshot.path
    if path is None:
        return None
    settings, engine = snapshot.resolved.settings, snapshot.engine
    names_header = None
    if engine.project is not None and snapshot.language == "c":
        headers = engine.project.shim_headers(path, snapshot.data, settings.target)
        names_header = headers[0] if headers else None
    try:
        needs = dualstack.FileNeeds(path, compat, names_header)
        planned = dualstack.support_files([needs], settings, engine.ruleset, [settings.root, path.parent])
    except dualstack.OutsidePaths as exc:
        log.debug("no dual-stack action for %s: %s", snapshot.uri, exc)
        return None
    out: list[_SupportEdit] = []
    for support in planned:
        uri = from_fs_path(str(support.path)) or support.path.as_uri()
        after = support.after if support.before is None else SourceFile.from_bytes(support.after).data
        if support.before is None:
            if not snapshot.capabilities.create_files:
                return None
            out.append(_SupportEdit(uri, [types.TextEdit(range=_START, new_text=after.decode("utf-8"))], create=True))
            continue
        before = support.before.data
        edits = byte_edits.text_edits(LineIndex(before), byte_edits.difference(before, after), snapshot.unit)
        out.append(_SupportEdit(uri, list(edits)))
    return out


# ---- suppression comments -----------------------------------------------------------------------------------
def _suppressions(snapshot: Snapshot, finding: Finding) -> list[tuple[str, byte_edits.ByteEdit]]:
    assert snapshot.language is not None
    language_profile = profile(snapshot.language)
    if language_profile.line_comment is None or snapshot.tree is None:
        return []
    out = []
    line_edit = _line_suppression(snapshot, finding, language_profile)
    if line_edit is not None:
        out.append((t("Ignore {code} on this line", code=finding.rule), line_edit))
    file_edit = _file_suppression(snapshot, finding.rule, language_profile)
    if file_edit is not None:
        out.append((t("Ignore {code} in this file", code=finding.rule), file_edit))
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
