"""Whole runs answered by the results cache: when every file of a run has a record that holds (ResultCache.lookup),
the run's output is a function of those records, of what discovery found and of how the output was asked for, so
the output of the last such run is kept whole and written again instead of decoding every finding and formatting
it anew (on cuda-samples, decoding and formatting 18,497 findings is half of a warm run).

A run's answer is kept under its question (the output's format and options, the targets, the working folder, the
paths named), one per question, in `runs/` of the cache folder. It holds the seal of the run (a digest of each
file's label and record seal, in output order, and of discovery's skipped, failed and excluded paths), each
target's count of findings per difficulty (for the exit code, which the configuration's fail-on decides now) and
the output's text. It is used only when the seal computed now from the records that answer this run is the one it
holds; any file analysed again (a miss) makes the run an ordinary one, whose answer is then kept anew. The text is
the front end's; this module never reads it."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..model.records import record
from ..resources.cache import write_whole
from .resultcache import Lookup, ResultCache, _digest, framed, unframe

RUN_FORMAT = 1
RUN_MAGIC = b"cudaport run %d\n" % RUN_FORMAT


@record
class RunAnswer:
    """A kept run: each target's findings per difficulty (difficulty's int -> count) and the output's text."""

    levels: dict[str, dict[int, int]]
    text: str


def run_seal(labels: Sequence[tuple[str, str]], lookups: Sequence[Lookup], discovery: Any) -> bytes | None:
    """What a run's results are, when the cache answers every file of it: a digest of each file's label, path and
    record seal (its results' digest, Lookup.seal) and of `discovery` (plain data: what discovery skipped, failed
    and left out); None when any file has no record that holds."""
    parts: list[bytes | str] = [repr(discovery)]
    for (label, path), found in zip(labels, lookups, strict=True):
        if found.hit is None:
            return None
        parts.extend((label, path, found.seal))
    return _digest(*parts)


def _answer_file(cache: ResultCache, question: str) -> str:
    return os.path.join(cache.folder, "runs", _digest(cache.key, question).hex())


def kept_answer(cache: ResultCache, question: str, seal: bytes) -> RunAnswer | None:
    """The answer kept for `question` if it was given for the same seal; None otherwise (none kept, another seal,
    or a file that is damaged or from another version: the run goes the ordinary way)."""
    try:
        read = unframe(_answer_file(cache, question), RUN_MAGIC)
        if read is None:
            return None
        (kept_seal, levels, length), body = read
        if kept_seal != seal:
            return None
        if len(body) != length:
            return None  # truncated since it was written (files are written whole and renamed: a damaged disk)
        return RunAnswer(dict(levels), body.decode("utf-8"))
    except Exception:
        return None


def keep_answer(
    cache: ResultCache, question: str, seal: bytes, levels: Mapping[str, Mapping[int, int]], text: str
) -> None:
    """Keep a run's answer (never raises: a run that cannot keep it is only slower next time)."""
    try:
        body = text.encode("utf-8")
        head = (seal, {t: dict(counts) for t, counts in levels.items()}, len(body))
        path = _answer_file(cache, question)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_whole(Path(path), framed(RUN_MAGIC, head, body))
    except Exception as exc:  # text that is not UTF-8 (a path's surrogates), a full disk: not kept
        from ..resources.cache import debug

        debug("results cache: the run's answer not kept (%s: %s)", type(exc).__name__, exc)
