"""Rule documentation as text (`cudaport rule CODE`) and Markdown (SARIF help, hover, rules/RULES.md), in the
active language: the headings are this module's messages, the prose is the rule data's, translated where it is
shown. `english=True` gives the English whatever the language (SARIF keeps it beside the translation)."""

from __future__ import annotations

from collections.abc import Callable

from .. import i18n
from ..i18n import N_, t
from ..knowledge.ruleset import Rule, RuleSet
from ..model.findings import Difficulty
from ..model.words import label_word

Translate = Callable[..., str]

# The headings, translated where shown (in English too when SARIF asks for the original).
_AREA = N_("Area: {area}")
_BY_TARGET = N_("Difficulty by target (with a counterpart / without one):")
_TABLE_HEAD = N_("| target | with a counterpart | without one |")
_WHAT = N_("What it does")
_WHY = N_("Why it matters")
_EXAMPLE = N_("Example")
_FIX = N_("Fix safety")


def _translator(english: bool) -> Translate:
    return i18n.english if english else i18n.t


def difficulty_table(rule: Rule, targets: list[str]) -> list[tuple[str, str, str]]:
    rows = []
    for target in targets:
        with_counterpart = rule.difficulty.get(target)
        without = rule.unmapped.get(target)
        rows.append(
            (
                target,
                with_counterpart.label if with_counterpart is not None else "-",  # PORTABLE is 0, and falsy
                without.label if without is not None else "-",
            )
        )
    return rows


def _difficulty_rows(rule: Rule, targets: list[str], english: bool) -> list[tuple[str, str, str]]:
    """The table with the difficulties as a person reads them (in English: their names)."""
    if english:
        return difficulty_table(rule, targets)
    return [(target, label_word(a), label_word(b)) for target, a, b in difficulty_table(rule, targets)]


def rule_text(rule: Rule, targets: list[str] | None = None, english: bool = False) -> str:
    tr = _translator(english)
    targets = targets or sorted(set(rule.difficulty) | set(rule.unmapped))
    lines = [f"{rule.code} ({rule.name}): {tr(rule.summary)}", "", tr(_AREA, area=tr(rule.area)), ""]
    lines.append(tr(_BY_TARGET))
    for target, with_counterpart, without in _difficulty_rows(rule, targets, english):
        lines.append(f"  {target}: {with_counterpart} / {without}")
    for title, body in _sections(rule, tr):
        lines += ["", f"## {title}", body]
    return "\n".join(lines) + "\n"


def rule_markdown(rule: Rule, targets: list[str] | None = None, english: bool = False) -> str:
    tr = _translator(english)
    targets = targets or sorted(set(rule.difficulty) | set(rule.unmapped))
    lines = [f"## {rule.code}: {rule.name}", "", tr(rule.summary), "", tr(_AREA, area=tr(rule.area)), ""]
    lines += [tr(_TABLE_HEAD), "|---|---|---|"]
    for target, with_counterpart, without in _difficulty_rows(rule, targets, english):
        lines.append(f"| {target} | {with_counterpart} | {without} |")
    for title, body in _sections(rule, tr):
        lines += ["", f"### {title}", "", body]
    return "\n".join(lines) + "\n"


def _sections(rule: Rule, tr: Translate) -> list[tuple[str, str]]:
    """The documentation sections a rule has, in the order ruff documents its rules."""
    sections = (
        (tr(_WHAT), rule.docs.what),
        (tr(_WHY), rule.docs.why),
        (tr(_EXAMPLE), rule.docs.example),
        (tr(_FIX), rule.docs.fix),
    )
    return [(title, tr(body)) for title, body in sections if body]


def all_rules_markdown(ruleset: RuleSet) -> str:
    targets = list(ruleset.targets)
    severities = ("hint", "information", "warning", "error")  # the names the configuration's `severity` takes
    header = [
        t("# cudaport rules"),
        "",
        t("Generated from `rules/rules.toml` by `cudaport rule --all --format markdown`; do not edit by hand."),
        "",
        t(
            "Difficulty: `portable` runs unchanged, `mechanical` has a safe rewrite, `manual` needs a person,\n"
            "`blocker` has no counterpart. Severity follows it: {severities}.",
            severities=t(", ").join(
                t("{difficulty} → {severity}", difficulty=d.label, severity=s)
                for d, s in zip(Difficulty, severities, strict=True)
            ),
        ),
        "",
        t(
            "`cudaport fix` renames CUDA names to the target's; `cudaport fix --style dual-stack` keeps them and "
            "writes\nwhat the target needs beside them (a portability header, a Python helper module), so one tree "
            "builds for\nboth. Each rule's *Fix safety* says what either style does."
        ),
        "",
        t("| code | name | area | summary |"),
        "|---|---|---|---|",
    ]
    for rule in ruleset.rules.values():
        header.append(f"| [{rule.code}](#{rule.code.lower()}) | {rule.name} | {t(rule.area)} | {t(rule.summary)} |")
    # an explicit anchor per rule, so `RULES.md#cp1001` (the index above, SARIF helpUri) resolves on any renderer
    body = [f'<a id="{rule.code.lower()}"></a>\n\n' + rule_markdown(rule, targets) for rule in ruleset.rules.values()]
    return "\n".join(header) + "\n\n" + "\n".join(body)
