"""A progress bar on a terminal while a large tree is scanned; silent anywhere else (pipes, files, CI logs)."""

from __future__ import annotations

import os
import time
from typing import TextIO

from ..i18n import t

# A tree this large gets a bar at once; a smaller one only if it is still running after SHOW_AFTER seconds.
LARGE_TREE = 50
SHOW_AFTER = 1.0
REDRAW_EVERY = 0.1


class ProgressBar:
    """Call it with (done, total) after each file; `close()` erases it. Draws only on a terminal."""

    def __init__(self, stream: TextIO, label: str = "Scanning", enabled: bool | None = None) -> None:
        self.stream = stream
        self.label = label
        self.enabled = _is_terminal(stream) if enabled is None else enabled
        self._started = time.monotonic()
        self._drawn_at = 0.0
        self._visible = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        now = time.monotonic()
        if not self._drawn_at and total < LARGE_TREE and now - self._started < SHOW_AFTER:
            return
        if self._drawn_at and done < total and now - self._drawn_at < REDRAW_EVERY:
            return
        self._drawn_at = now
        self._visible = True
        self.stream.write("\r" + self.line(done, total))
        self.stream.flush()

    def line(self, done: int, total: int) -> str:
        import shutil  # only once a bar is drawn

        width = shutil.get_terminal_size((80, 24)).columns
        counter = " " + t(
            "{done}/{total} files {percent}%", done=done, total=total, percent=f"{100 * done // total:3d}"
        )
        room = max(10, min(40, width - len(self.label) - len(counter) - 4))
        filled = room * done // total
        return f"{self.label} [{'#' * filled}{'.' * (room - filled)}]{counter}"

    def hide(self) -> None:
        """Erase the bar before something else is written to the terminal; it is drawn again at the next redraw."""
        if self._visible:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self._visible = False

    def close(self) -> None:
        self.hide()


def _is_terminal(stream: TextIO) -> bool:
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
