"""How a Python finding and its fix are built, in one place: the outcome the rule data gives a symbol on the target,
the fix's edits with the target package's import insertion, and when a finding is left to a person."""

from __future__ import annotations

from typing import Protocol

from tree_sitter import Node

from ...i18n import t
from ...knowledge.python import UNSUPPORTED_RULE, PythonKnowledge
from ...knowledge.ruleset import RuleSet, Symbol
from ...model.findings import Applicability, Difficulty, Edit, Finding, FindingData, Fix
from ...model.records import record
from .filestate import FileState


class Span(Protocol):
    """Where a finding is: a node, or a place an import statement spells a name."""

    @property
    def start_byte(self) -> int: ...

    @property
    def end_byte(self) -> int: ...


@record(frozen=True, slots=True)
class WrittenSpan:
    """A place an import statement spells a name (not a node of its own)."""

    start_byte: int
    end_byte: int


class FindingBuilder:
    """Builds the findings of one analyzer's rule data, with their fixes."""

    def __init__(self, ruleset: RuleSet, know: PythonKnowledge) -> None:
        self.ruleset = ruleset
        self.know = know

    def insertion(self, file: FileState) -> Edit | None:
        """The edit importing the target's package (`import torch_npu`), worked out once per file; None when the
        target needs none or the file imports it already."""
        if not file.insertion_known:
            facts = self.know.targets.get(file.target)
            if facts is not None and facts.module and not file.imports.imports_module(facts.module):
                comment = "  # noqa: F401" if file.context.flags_unused_imports() else ""
                file.insertion = file.imports.insertion(facts.module, comment)
            file.insertion_known = True
        return file.insertion

    def finding(
        self,
        file: FileState,
        symbol: Symbol,
        node: Span,
        edits: list[Edit] | None,
        data: FindingData,
        force_unsafe: bool = False,
        needs_module: bool = True,
    ) -> Finding:
        outcome = self.ruleset.outcome(symbol, file.target)
        fix = None
        replacement = outcome.replacement
        difficulty, message = outcome.difficulty, outcome.message
        mapped = self.ruleset.mapping(symbol, file.target)
        renamed = mapped is not None and bool(mapped.replacement) and mapped.replacement != symbol.name
        if not edits and renamed and difficulty <= Difficulty.MECHANICAL:
            # the counterpart is certain, but this spelling cannot be rewritten safely (an import shared with
            # names that have none, a module alias used for other things): a person does it
            difficulty = Difficulty.MANUAL
            message = t(
                "{message}; this spelling cannot be rewritten automatically: change it by hand", message=message
            )
        elif edits and force_unsafe and difficulty <= Difficulty.MECHANICAL:
            difficulty = Difficulty.MANUAL
            message = t(
                "{message}; its import statement also brings names that need a person, so it is not rewritten "
                "automatically",
                message=message,
            )
        if edits:
            all_edits = list(edits)
            insertion = self.insertion(file) if needs_module else None
            if insertion is not None:
                all_edits.append(insertion)
            safe = difficulty <= Difficulty.MECHANICAL and not force_unsafe
            replacement = mapped.replacement if mapped is not None and mapped.replacement else replacement
            fix = Fix(
                title=(
                    t("Replace `{name}` with `{replacement}`", name=symbol.name, replacement=replacement)
                    if replacement
                    else t("Port `{name}`", name=symbol.name)
                ),
                edits=tuple(all_edits),
                applicability=Applicability.SAFE if safe else Applicability.UNSAFE,
            )
        return Finding(
            symbol.rule,
            node.start_byte,
            node.end_byte,
            difficulty,
            message,
            symbol.name,
            replacement if fix is not None else None,
            fix,
            data=data,
        )

    def unsupported(self, name: str, node: Node, target: str) -> Finding:
        """An API or tensor method the target does not support (with the rule data's advice, if any)."""
        advice = self.know.unsupported_advice.get(name) or self.know.unsupported_advice.get(f"torch.{name}", "")
        symbol = Symbol(name, "api", UNSUPPORTED_RULE, "torch", {}, note=advice)
        outcome = self.ruleset.outcome(symbol, target)
        return Finding(
            UNSUPPORTED_RULE,
            node.start_byte,
            node.end_byte,
            outcome.difficulty,
            outcome.message,
            name,
            data={"kind": "unsupported"},
        )
