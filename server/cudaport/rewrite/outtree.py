"""`cudaport fix --output-dir DIR`: the fixed tree written elsewhere, the original left untouched (as hipify users
expect). The paths given are copied under DIR as they are laid out under the current directory (`src/` becomes
`DIR/src/`), whole, so that the copy builds; the rewritten files then replace their copies."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from ..i18n import t

# Never copied: version control data (large, and not part of what builds).
_NOT_COPIED = (".git", ".hg", ".svn", ".bzr")


class OutputTreeError(ValueError):
    """An output directory that cannot be used; the message says why."""


class OutputTree:
    def __init__(self, paths: Sequence[str], output: Path, base: Path | None = None) -> None:
        self.base = (base or Path.cwd()).resolve()
        self.output = output.resolve()
        self.sources = [Path(p).resolve() for p in paths]
        for source in self.sources:
            if not _within(source, self.base):
                raise OutputTreeError(
                    t("{path} is outside the current directory: run from a folder that holds it", path=source)
                )
            if _within(self.output, source) or _within(source, self.output):
                raise OutputTreeError(
                    t(
                        "the output directory {output} and {path} overlap: choose another one",
                        output=output,
                        path=source,
                    )
                )
        if self.output.exists() and (not self.output.is_dir() or any(self.output.iterdir())):
            raise OutputTreeError(t("{output} already exists and is not an empty directory", output=output))

    def copy(self) -> None:
        """The given paths, copied under the output directory (symbolic links stay links)."""
        self.output.mkdir(parents=True, exist_ok=True)
        for source in self.sources:
            target = self.output / source.relative_to(self.base)
            if source.is_dir():
                shutil.copytree(
                    source, target, symlinks=True, ignore=shutil.ignore_patterns(*_NOT_COPIED), dirs_exist_ok=True
                )
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target, follow_symlinks=False)

    def place(self, path: Path) -> Path:
        """Where the copy of `path` is."""
        return self.output / Path(os.path.abspath(path)).relative_to(self.base)


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents
