"""Where the data cudaport ships lies: the rule data (`rules/`, `_rules` inside the wheel) and its message
catalogues."""

from __future__ import annotations

from pathlib import Path


class RuleDataError(Exception):
    """Rule data that cannot be used; the message names the file and the entry."""


def bundled_rules_dir() -> Path:
    """`rules/` inside the wheel, or the checkout's `rules/` for an editable install."""
    here = Path(__file__).resolve().parent.parent  # the cudaport package
    for candidate in (here / "_rules", here.parents[1] / "rules"):  # paths first: importlib.resources costs imports
        if candidate.is_dir():
            return candidate
    from importlib import resources  # a package imported from a zip file

    packaged = resources.files("cudaport").joinpath("_rules")
    if packaged.is_dir():
        return Path(str(packaged))
    raise RuleDataError("the bundled rule data (rules/) is missing from this installation")


def locale_dir() -> Path:
    """The message catalogues (PO files, one folder per language)."""
    return bundled_rules_dir() / "locale"
