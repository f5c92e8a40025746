"""A folder's tree, walked as os.walk walks it (top-down, each folder's entries sorted by name), with each entry's
type taken from the listing itself (os.scandir) rather than from a system call per entry: file selection and the
include graph's list of the project's headers walk the same trees."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

# (name, whether it is a symbolic link)
Entry = tuple[str, bool]

# folder (absolute) -> its folders and other entries, while listed_once() holds (else None)
_listed: dict[str, tuple[list[Entry], list[Entry]]] | None = None


@contextlib.contextmanager
def listed_once() -> Iterator[None]:
    """Within it, each folder is listed once: a command-line run reads the tree as it was when it started, and its
    walks (file selection, then the include graph's headers) share the listings. Never the language server's:
    its trees change under it."""
    global _listed
    before, _listed = _listed, {} if _listed is None else _listed
    try:
        yield
    finally:
        _listed = before


def walk(top: str) -> Iterator[tuple[str, str, list[Entry], list[Entry]]]:
    """(a folder, its path below `top` ("" for `top`), its folders, its other entries) for `top` and each folder
    below it. Pruning the folders' list before the next step prunes the walk; a linked folder is listed, never
    entered (os.walk's followlinks=False); a folder that cannot be listed is passed over. Iterative: any depth."""
    stack = [(top, "")]
    while stack:
        folder, relative = stack.pop()
        key = os.path.abspath(folder) if _listed is not None else ""
        known = _listed.get(key) if _listed is not None else None
        if known is None:
            known = _list(folder)
            if known is None:
                continue
            if _listed is not None:
                _listed[key] = known
        folders, files = list(known[0]), list(known[1])  # the caller prunes its copy
        yield folder, relative, folders, files
        for name, link in reversed(folders):
            if not link:
                stack.append((os.path.join(folder, name), os.path.join(relative, name) if relative else name))


def listed_names(folder: str) -> frozenset[str] | None:
    """The names in `folder` (absolute) when a walk within listed_once() has listed it, else None (not known)."""
    if _listed is None:
        return None
    known = _listed.get(folder)
    if known is None:
        return None
    return frozenset(name for name, _link in (*known[0], *known[1]))


def _list(folder: str) -> tuple[list[Entry], list[Entry]] | None:
    """A folder's folders and other entries, sorted by name; None when it cannot be listed."""
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError:
        return None
    folders: list[Entry] = []
    files: list[Entry] = []
    for entry in entries:
        try:
            is_folder = entry.is_dir()
        except OSError:
            is_folder = False
        (folders if is_folder else files).append((entry.name, entry.is_symlink()))
    return folders, files
