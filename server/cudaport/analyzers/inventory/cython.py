"""Cython (`.pyx`, `.pxd`): `cdef extern from "cuda_runtime.h"` blocks and the CUDA names declared and used in
them, rated with the C rule data (the same symbols and headers as a `.cu` file).

A Cython file declares the C functions it calls itself: in a `.pyx` the rename covers the declaration and its
uses together (safe); a `.pxd` is cimported by other files, which must be renamed with it (unsafe)."""

from __future__ import annotations

import re
from typing import Any

from ...i18n import t
from ...knowledge.ruleset import RuleSet
from ...model.findings import Applicability, Difficulty, Edit, Finding, FindingData, Fix
from ..common.base import FileContext

# Comments and strings (which hold no code), then identifiers; `cdef extern from "x.h"` names a header.
_LEXEME = re.compile(
    rb"(?P<comment>#[^\n]*)"
    rb"|(?P<extern>\bextern\s+from\s+)(?P<q>[\"'])(?P<header>[^\"'\n]+)(?P=q)"
    rb"|(?P<string>[rbuRBUfF]{0,2}(?:\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'))"
    rb"|(?P<word>[A-Za-z_]\w*)"
)


class CythonAnalyzer:
    language = "cython"
    incremental = None

    def __init__(self, ruleset: RuleSet) -> None:
        self.ruleset = ruleset

    def parse(self, data: bytes, old_tree: Any | None = None) -> Any:
        return None

    def analyze(
        self, data: bytes, tree: Any, context: FileContext, ranges: list[tuple[int, int]] | None = None
    ) -> list[Finding]:
        findings: list[Finding] = []
        for lexeme in _LEXEME.finditer(data):
            if lexeme.group("header") is not None:
                start, end = lexeme.span("header")
                symbol = self.ruleset.header(lexeme.group("header").decode("utf-8", "replace"))
                kind = "include"
            elif lexeme.group("word") is not None:
                start, end = lexeme.span("word")
                symbol = self.ruleset.symbol(lexeme.group("word").decode())
                kind = "api"
                if symbol is not None and (symbol.generic or symbol.quiet or symbol.within or symbol.scopes):
                    continue  # names that count only in a C++ position (`texture`, `uuid`, `at::cuda::...`)
            else:
                continue
            if symbol is None:
                continue
            if ranges is not None and not any(lo <= start < hi for lo, hi in ranges):
                continue
            outcome = self.ruleset.outcome(symbol, context.target)
            difficulty = outcome.difficulty
            target = self.ruleset.targets.get(context.target)
            if difficulty == Difficulty.MECHANICAL and (target is None or target.kernels == "rewrite"):
                # ACL and CNRT calls are rewritten whole in C (rules/calls.toml); a declaration is a person's job
                difficulty = Difficulty.MANUAL
            fix = None
            if outcome.rewrite and outcome.replacement and difficulty <= Difficulty.MECHANICAL:
                # A .pyx renames its own declarations with its uses; a .pxd is cimported by files not in sight.
                shared = not context.path.endswith(".pyx")
                names = {"name": symbol.name, "replacement": outcome.replacement}
                fix = Fix(
                    t("Replace `{name}` with `{replacement}` (rename every file that cimports it too)", **names)
                    if shared
                    else t("Replace `{name}` with `{replacement}`", **names),
                    (Edit(start, end, outcome.replacement),),
                    Applicability.UNSAFE if shared else Applicability.SAFE,
                )
            data_out: FindingData = {"kind": kind, "library": symbol.library}
            findings.append(
                Finding(
                    rule=symbol.rule,
                    start=start,
                    end=end,
                    difficulty=difficulty,
                    message=outcome.message,
                    symbol=symbol.name,
                    replacement=outcome.replacement if fix is not None else None,
                    fix=fix,
                    data=data_out,
                )
            )
        return findings
