"""Bringing a document's findings up to date: the editor's reasons not to analyse a buffer (too large, binary,
excluded), then the engine's analysis session (cudaport.session), which decides between the edited windows and
the whole file."""

from __future__ import annotations

import time

from ..engine.session import Outcome
from ..i18n import t
from .background import INLINE_ANY, INLINE_FULL, Background, Job
from .configuration import Resolved
from .documents import Document, Skip, next_result_id

__all__ = ["Outcome", "adopt", "analyse", "settle", "skip_reason"]


def analyse(
    document: Document,
    resolved: Resolved,
    whole_file: bool = False,
    local_first: bool = False,
    background: Background | None = None,
) -> Outcome:
    """Make `document.findings` describe its current text under `resolved`'s configuration. `local_first`: for
    diagnostics, which can be sent again once `settle` has confirmed them (see Session.analyse); everything else
    (hover, code actions, commands) gets settled findings. With `background`, a whole-file analysis of a large
    buffer is handed to it (Outcome "deferred": the findings stay those of the last analysis, moved through the
    edits since; see cudaport.lsp.background)."""
    began = time.perf_counter()
    session = document.session
    size = len(document.data)
    inline = background is None or size <= INLINE_FULL
    if not local_first:
        settle(document, allow_full=inline)
    if document.config_token is not resolved.token:
        session.reconfigure(resolved.engine)
        session.needs_full = True
    elif document.current and not whole_file:
        return Outcome("current", changed=False)
    reason = skip_reason(document, resolved)
    if reason is not None:
        changed = bool(document.findings) or document.skipped != reason
        session.clear()
        document.skipped = reason
        _done(document, resolved)
        return Outcome("skipped", time.perf_counter() - began, changed=changed)
    document.skipped = None
    incremental = resolved.options.incremental
    if background is not None and not inline and (size > INLINE_ANY or whole_file or not incremental):
        return _submit(document, resolved, background, whole_file)
    outcome = session.analyse(
        whole_file=whole_file, incremental=incremental, local_first=local_first, allow_full=inline
    )
    if outcome.mode == "deferred":
        assert background is not None
        return _submit(document, resolved, background, whole_file)
    _done(document, resolved)
    return outcome


def _submit(document: Document, resolved: Resolved, background: Background, whole_file: bool) -> Outcome:
    """A whole-file analysis of a snapshot of the text, off the message loop (once per text and configuration)."""
    if document.edit_log is None:
        document.edit_log = []
    assert document.language is not None
    background.submit(
        Job(
            uri=document.uri,
            version=document.version,
            mark=len(document.edit_log),
            data=document.data,
            path=document.path,
            language=document.language,
            engine=resolved.engine,
            token=resolved.token,
            whole_file=whole_file,
            incremental=resolved.options.incremental,
            owner=document,
            cancel_on_newer=len(document.data) > INLINE_ANY,
        )
    )
    return Outcome("deferred", changed=False)


def adopt(document: Document, job: Job, more_to_come: bool) -> None:
    """Take over the session a background analysis made, with the edits since its snapshot replayed onto it (they
    are dirty in it: what is published next is analysed for the current version). `more_to_come`: another job
    for the document is queued or running, which still needs the edits logged."""
    session = job.session
    assert session is not None
    session.engine = job.engine  # the message loop's own from now on (the thread's parser is the thread's)
    edits = document.edit_log or []
    for start, end, text in edits[job.mark :]:
        if start < 0:
            session.replace_all(text)
        else:
            session.edit(start, end, text)
    if not more_to_come:
        document.edit_log = None
    document.session = session
    document.skipped = None
    document.settled_differently = False
    document.analysed_version = document.version  # whatever the edits left dirty makes it not current
    document.config_token = job.token
    document.result_id = next_result_id()


def settle(document: Document, allow_full: bool = True) -> None:
    """Confirm a local analysis against the whole file; when that changes the findings, they get a new result id
    and `settled_differently` tells the diagnostics to send them again."""
    if document.session.settle(allow_full):
        document.result_id = next_result_id()
        document.settled_differently = True


def skip_reason(document: Document, resolved: Resolved) -> Skip | None:
    settings = resolved.settings
    if document.language is None:
        return Skip(t("not a C, C++, CUDA or Python source"))
    if not resolved.engine.supports(document.language):
        return Skip(t("cudaport has no analyzer for {language} sources yet", language=document.language))
    excluded = resolved.excluded(document.path) if document.path is not None else None
    if excluded is not None:
        return Skip(t("not one of the project's files ({reason}): not analysed", reason=excluded))
    if len(document.data) > settings.max_file_size:
        return Skip(
            t(
                "{size} bytes is over the {limit}-byte limit (max-file-size): not analysed",
                size=f"{len(document.data):,}",
                limit=f"{settings.max_file_size:,}",
            ),
            warn=True,
        )
    if document.binary:
        return Skip(t("binary content (NUL bytes): not analysed"), warn=True)
    return None


def _done(document: Document, resolved: Resolved) -> None:
    document.analysed_version = document.version
    document.config_token = resolved.token
    document.result_id = next_result_id()
