"""`cudaport rule`: what a rule means, why, an example and fix safety (text, Markdown or JSON)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .. import i18n
from ..i18n import t
from ..knowledge.ruleset import load_ruleset
from ..model.nearest import nearest, suggestion
from ..project.config import configured_language
from .common import EXIT_OK, UsageError, set_language
from .ruledoc import all_rules_markdown, rule_markdown, rule_text


def rule(args: argparse.Namespace) -> int:
    if getattr(args, "lang", None) is None:
        configured = configured_language(Path.cwd())
        if configured is not None:
            set_language(configured)
    ruleset = load_ruleset(args.extra_rules or ())
    targets = list(ruleset.targets)
    if args.all:
        if args.format == "markdown":
            sys.stdout.write(all_rules_markdown(ruleset))
        elif args.format == "json":
            print(json.dumps([_rule_json(r, targets) for r in ruleset.rules.values()], indent=2))
        else:
            for each in ruleset.rules.values():
                print(f"{each.code}  {each.name:28} {t(each.summary)}")
        return EXIT_OK
    if not args.code:
        raise UsageError(t("give a rule code (such as CP1001) or --all"))
    code = args.code.strip().upper()
    rule = ruleset.rules.get(code)
    if rule is None:
        by_name = {r.name: r for r in ruleset.rules.values()}
        rule = by_name.get(args.code.strip().lower())  # `cudaport rule cuda-runtime-api`, as ruff takes names
    if rule is None:
        close = [c for c in ruleset.rules if c.startswith(code)][:5]  # a code cut short: the rules it begins
        close = close or nearest(code, ruleset.rules, n=3)
        close += nearest(args.code, by_name, n=2)
        raise UsageError(
            t(
                "unknown rule {code}{hint} (`cudaport rule --all` lists them)",
                code=repr(args.code),
                hint=suggestion(close),
            )
        )
    if args.format == "markdown":
        sys.stdout.write(rule_markdown(rule, targets))
    elif args.format == "json":
        print(json.dumps(_rule_json(rule, targets), indent=2))
    else:
        sys.stdout.write(rule_text(rule, targets))
    return EXIT_OK


def _rule_json(rule: Any, targets: list[str]) -> dict[str, Any]:
    """Keys, codes and difficulties in English; the prose in the active language, with the English beside it
    (`english`) when that is another."""
    docs = {"what": rule.docs.what, "why": rule.docs.why, "example": rule.docs.example, "fix": rule.docs.fix}
    out = {
        "code": rule.code,
        "name": rule.name,
        "summary": t(rule.summary),
        "difficulty": {name: rule.difficulty[name].label for name in targets if name in rule.difficulty},
        "unmapped": {name: rule.unmapped[name].label for name in targets if name in rule.unmapped},
        "docs": {key: t(text) if text else text for key, text in docs.items()},
    }
    if i18n.language() != i18n.ENGLISH:
        out["english"] = {"summary": rule.summary, "docs": docs}
    return out
