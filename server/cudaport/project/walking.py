"""A folder's tree, walked as os.walk walks it (top-down, each folder's entries sorted by name), with each entry's
type taken from the listing itself (os.scandir) rather than from a system call per entry: file selection and the
include graph's list of the project's headers walk the same trees."""

from __future__ import annotations

import os
from collections.abc import Iterator

# (name, whether it is a symbolic link)
Entry = tuple[str, bool]


def walk(top: str) -> Iterator[tuple[str, str, list[Entry], list[Entry]]]:
    """(a folder, its path below `top` ("" for `top`), its folders, its other entries) for `top` and each folder
    below it. Pruning the folders' list before the next step prunes the walk; a linked folder is listed, never
    entered (os.walk's followlinks=False); a folder that cannot be listed is passed over. Iterative: any depth."""
    stack = [(top, "")]
    while stack:
        folder, relative = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError:
            continue
        folders: list[Entry] = []
        files: list[Entry] = []
        for entry in entries:
            try:
                is_folder = entry.is_dir()
            except OSError:
                is_folder = False
            (folders if is_folder else files).append((entry.name, entry.is_symlink()))
        yield folder, relative, folders, files
        for name, link in reversed(folders):
            if not link:
                stack.append((os.path.join(folder, name), os.path.join(relative, name) if relative else name))
