"""Bringing a document's findings up to date: the editor's reasons not to analyse a buffer (too large, binary,
excluded), then the engine's analysis session (cudaport.session), which decides between the edited windows and
the whole file."""

from __future__ import annotations

import time

from ..engine.session import Outcome
from ..i18n import t
from .configuration import Resolved
from .documents import Document, Skip, next_result_id

__all__ = ["Outcome", "analyse", "settle", "skip_reason"]


def analyse(document: Document, resolved: Resolved, whole_file: bool = False, local_first: bool = False) -> Outcome:
    """Make `document.findings` describe its current text under `resolved`'s configuration. `local_first`: for
    diagnostics, which can be sent again once `settle` has confirmed them (see Session.analyse); everything else
    (hover, code actions, commands) gets settled findings."""
    began = time.perf_counter()
    session = document.session
    if not local_first:
        settle(document)
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
    outcome = session.analyse(whole_file=whole_file, incremental=resolved.options.incremental, local_first=local_first)
    _done(document, resolved)
    return outcome


def settle(document: Document) -> None:
    """Confirm a local analysis against the whole file; when that changes the findings, they get a new result id
    and `settled_differently` tells the diagnostics to send them again."""
    if document.session.settle():
        document.result_id = next_result_id()
        document.settled_differently = True


def skip_reason(document: Document, resolved: Resolved) -> Skip | None:
    settings = resolved.settings
    if document.language is None:
        return Skip(t("not a C, C++, CUDA or Python source"))
    if not resolved.engine.supports(document.language):
        return Skip(t("cudaport has no analyzer for {language} sources yet", language=document.language))
    if document.path is not None and resolved.excluded(document.path):
        return Skip(t("excluded by the configuration (exclude/extend-exclude)"))
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
