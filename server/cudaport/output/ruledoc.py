"""Rule documentation as text (`cudaport rule CODE`) and Markdown (SARIF help, hover, rules/RULES.md)."""

from __future__ import annotations

from ..models import Difficulty
from ..ruleset import Rule, RuleSet


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


def rule_text(rule: Rule, targets: list[str] | None = None) -> str:
    targets = targets or sorted(set(rule.difficulty) | set(rule.unmapped))
    lines = [f"{rule.code} ({rule.name}): {rule.summary}", "", f"Area: {rule.area}", ""]
    lines.append("Difficulty by target (with a counterpart / without one):")
    for target, with_counterpart, without in difficulty_table(rule, targets):
        lines.append(f"  {target}: {with_counterpart} / {without}")
    for title, body in _sections(rule):
        lines += ["", f"## {title}", body]
    return "\n".join(lines) + "\n"


def rule_markdown(rule: Rule, targets: list[str] | None = None) -> str:
    targets = targets or sorted(set(rule.difficulty) | set(rule.unmapped))
    lines = [f"## {rule.code}: {rule.name}", "", rule.summary, "", f"Area: {rule.area}", ""]
    lines += ["| target | with a counterpart | without one |", "|---|---|---|"]
    for target, with_counterpart, without in difficulty_table(rule, targets):
        lines.append(f"| {target} | {with_counterpart} | {without} |")
    for title, body in _sections(rule):
        lines += ["", f"### {title}", "", body]
    return "\n".join(lines) + "\n"


def _sections(rule: Rule) -> list[tuple[str, str]]:
    """The documentation sections a rule has, in the order ruff documents its rules."""
    sections = (
        ("What it does", rule.docs.what),
        ("Why it matters", rule.docs.why),
        ("Example", rule.docs.example),
        ("Fix safety", rule.docs.fix),
    )
    return [(title, body) for title, body in sections if body]


def all_rules_markdown(ruleset: RuleSet) -> str:
    targets = list(ruleset.targets)
    header = [
        "# cudaport rules",
        "",
        "Generated from `rules/rules.toml` by `cudaport rule --all --format markdown`; do not edit by hand.",
        "",
        "Difficulty: `portable` runs unchanged, `mechanical` has a safe rewrite, `manual` needs a person,",
        "`blocker` has no counterpart. Severity follows it: "
        + ", ".join(
            f"{d.label} → {s}" for d, s in zip(Difficulty, ("hint", "information", "warning", "error"), strict=True)
        )
        + ".",
        "",
        "`cudaport fix` renames CUDA names to the target's; `cudaport fix --style dual-stack` keeps them and writes",
        "what the target needs beside them (a portability header, a Python helper module), so one tree builds for",
        "both. Each rule's *Fix safety* says what either style does.",
        "",
        "| code | name | area | summary |",
        "|---|---|---|---|",
    ]
    for rule in ruleset.rules.values():
        header.append(f"| [{rule.code}](#{rule.code.lower()}) | {rule.name} | {rule.area} | {rule.summary} |")
    # an explicit anchor per rule, so `RULES.md#cp1001` (the index above, SARIF helpUri) resolves on any renderer
    body = [f'<a id="{rule.code.lower()}"></a>\n\n' + rule_markdown(rule, targets) for rule in ruleset.rules.values()]
    return "\n".join(header) + "\n\n" + "\n".join(body)
