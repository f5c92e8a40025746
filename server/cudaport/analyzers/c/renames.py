"""The fix the rule data's outcome makes of one name (a symbol, a namespace, a header path): its replacement in
its place, or, when the target has nothing for it, the name removed."""

from __future__ import annotations

from ...i18n import t
from ...knowledge.ruleset import Outcome
from ...model.findings import Applicability, Difficulty, Edit, Fix


def rename_fix(name: str, outcome: Outcome, start: int, end: int, data: bytes = b"") -> Fix | None:
    if not outcome.rewrite or outcome.replacement is None:
        return None
    safe = outcome.difficulty <= Difficulty.MECHANICAL
    applicability = Applicability.SAFE if safe else Applicability.UNSAFE
    if not outcome.replacement:  # nothing in its place: the name goes, with one of the blanks around it
        if end < len(data) and data[end] in b" \t":
            end += 1
        elif start > 0 and data[start - 1] in b" \t":
            start -= 1
        return Fix(t("Remove `{name}`", name=name), (Edit(start, end, ""),), applicability)
    return Fix(
        title=t("Replace `{name}` with `{replacement}`", name=name, replacement=outcome.replacement),
        edits=(Edit(start, end, outcome.replacement),),
        applicability=applicability,
    )
