"""The name a mistyped one was probably meant to be: one wording for the key of a configuration, a rule code, a
target and an option, wherever it is mistyped."""

from __future__ import annotations

from collections.abc import Iterable

from ..i18n import t


def nearest(word: str, known: Iterable[str], n: int = 1) -> list[str]:
    """Up to `n` of `known` close to `word`, only those nearly as close as the closest (`--targt` gets --target,
    not --lang as well); case does not count."""
    import difflib  # only once a name is mistyped

    by_lower = {name.lower(): name for name in known}
    close = difflib.get_close_matches(word.strip().lower(), list(by_lower), n=n, cutoff=0.6)
    if not close:
        return []
    ratio = {c: difflib.SequenceMatcher(None, word.strip().lower(), c).ratio() for c in close}
    return [by_lower[c] for c in close if ratio[c] >= ratio[close[0]] - 0.15]


def did_you_mean(word: str, known: Iterable[str], n: int = 1) -> str:
    """`; did you mean 'select'?` for a name close to one of `known`, else nothing."""
    return suggestion(nearest(word, known, n))


def suggestion(names: list[str]) -> str:
    """`; did you mean 'CP1011' or 'CP1001'?`, or nothing for no names."""
    if not names:
        return ""
    return t("; did you mean {names}?", names=t(" or ").join(repr(c) for c in names))
