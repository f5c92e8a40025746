"""What every language analyzer receives and returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..models import Finding


@dataclass(frozen=True, slots=True)
class ShimMapping:
    """A CUDA name that a portability header already maps to the target's name."""

    replacement: str
    header: str  # where the mapping is written (a path, for the message)


@dataclass(slots=True)
class FileContext:
    target: str
    path: str = ""
    shims: Mapping[str, ShimMapping] = field(default_factory=dict)
    # `#include` names written in the project headers this file includes (directly or not); None = unknown
    includes: frozenset[str] | None = None


class Analyzer(Protocol):
    language: str

    def parse(self, data: bytes, old_tree: Any | None = None) -> Any: ...

    def analyze(
        self, data: bytes, tree: Any, context: FileContext, ranges: list[tuple[int, int]] | None = None
    ) -> list[Finding]:
        """Findings in `data`; with `ranges`, only those that start inside one of the byte ranges."""
        ...
