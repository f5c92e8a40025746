"""What a folder holds, listed once per run: the questions asked of the folders above each file (a requirements
file, a linter's configuration, a package's `__init__.py`) are asked of the same few folders by every file of a
tree, and one listing answers each of them without a system call per name."""

from __future__ import annotations

import functools
import os


@functools.lru_cache(maxsize=8192)
def listing(folder: str) -> frozenset[str]:
    """The names in `folder` (nothing when it cannot be listed)."""
    try:
        return frozenset(os.listdir(folder))
    except OSError:
        return frozenset()


def has_file(folder: str, name: str) -> bool:
    """Whether `folder` holds a file (or a link to one) called `name`; only a listed name costs a system call."""
    return name in listing(folder) and os.path.isfile(os.path.join(folder, name))


def has_entry(folder: str, name: str) -> bool:
    """Whether `folder` holds anything called `name` that exists (a dangling link does not)."""
    return name in listing(folder) and os.path.exists(os.path.join(folder, name))


def forget() -> None:
    """Drop the listings (a long-lived process, told that files were created or deleted)."""
    listing.cache_clear()
