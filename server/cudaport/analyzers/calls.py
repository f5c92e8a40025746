"""Whole-call rewrites (`rules/calls.toml`): a call whose arguments move, drop or gain values on the target."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..models import Applicability

_PLACEHOLDER = re.compile(r"\{(\d+)(\?)?\}")
_OPTIONAL_WITH_COMMA = re.compile(r",\s*\{(\d+)\?\}")


@dataclass(frozen=True, slots=True)
class CallRewrite:
    symbol: str
    target: str
    template: str  # e.g. "aclrtMemcpy({1}, {3}, {2}, {3}, {4})"; {n} is the n-th argument (1-based), {n?} optional
    applicability: Applicability
    note: str = ""

    @property
    def callee(self) -> str:
        return self.template.split("(", 1)[0].strip()

    def render(self, args: Sequence[str]) -> str | None:
        """The rewritten call, or None when the call's argument count does not fit the template."""
        slots = [(int(index), bool(optional)) for index, optional in _PLACEHOLDER.findall(self.template)]
        required = max((index for index, optional in slots if not optional), default=0)
        allowed = max((index for index, _ in slots), default=0)
        if not required <= len(args) <= allowed:
            return None

        def optional_arg(match: re.Match[str]) -> str:
            index = int(match.group(1))
            return f", {args[index - 1]}" if index <= len(args) else ""

        def arg(match: re.Match[str]) -> str:
            index = int(match.group(1))
            return args[index - 1] if index <= len(args) else ""

        return _PLACEHOLDER.sub(arg, _OPTIONAL_WITH_COMMA.sub(optional_arg, self.template))


def load_call_rewrites(table: Mapping[str, Any] | None) -> dict[tuple[str, str], CallRewrite]:
    out: dict[tuple[str, str], CallRewrite] = {}
    for entry in (table or {}).get("call", []):
        rewrite = CallRewrite(
            symbol=str(entry["symbol"]),
            target=str(entry["target"]),
            template=str(entry["template"]),
            applicability=Applicability(str(entry.get("applicability", "unsafe"))),
            note=str(entry.get("note", "")),
        )
        out[(rewrite.symbol, rewrite.target)] = rewrite
    return out
