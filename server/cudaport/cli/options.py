"""The settings a command runs with: the configuration resolved with the command line on top, and the targets
`--target hip@5.2,npu` names."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

from ..i18n import t
from ..knowledge.ruleset import RuleSet, load_ruleset
from ..project.config import ConfigError, Settings, load_settings
from .common import UsageError, split_list, use_language, warn


def settings_from_args(args: argparse.Namespace) -> Settings:
    overrides: dict[str, Any] = {}
    if args.target:
        overrides["target"] = args.target
    for key, attr in (
        ("select", "select"),
        ("extend-select", "extend_select"),
        ("ignore", "ignore"),
        ("exclude", "exclude"),
        ("extend-exclude", "extend_exclude"),
    ):
        value = split_list(getattr(args, attr, None))
        if value is not None:
            overrides[key] = value
    if getattr(args, "respect_gitignore", None) is not None:
        overrides["respect-gitignore"] = args.respect_gitignore
    if args.extra_rules:
        overrides["extra-rules"] = [str(Path(p).resolve()) for p in args.extra_rules]
    if getattr(args, "fail_on", None) and args.fail_on != "never":
        overrides["fail-on"] = args.fail_on
    if getattr(args, "style", None):
        overrides["fix-style"] = args.style
    start = Path(args.paths[0]) if getattr(args, "paths", None) else Path.cwd()
    if args.config is not None and not args.config.is_file():
        raise ConfigError(t("{path}: configuration file not found", path=args.config))
    settings = load_settings(start=start if start.exists() else Path.cwd(), config=args.config, overrides=overrides)
    use_language(args, settings)
    for warning in settings.warnings:
        warn(warning)
    load_ruleset(settings.extra_rules)  # fail early, with the file name, on broken extra rule files
    return settings


def target_settings(args: argparse.Namespace, specs: list[str]) -> tuple[Settings, list[str]]:
    """The settings and targets for `--target hip@5.2,npu` (check and report): the configuration is resolved
    (and checked) as for the first target, and each target's release pins its version."""
    args.target = specs[0] if specs else None
    settings = settings_from_args(args)
    targets, versions = report_targets(specs, load_ruleset(settings.extra_rules))
    if versions:
        settings = dataclasses.replace(settings, versions={**settings.versions, **versions})
    return settings, targets or [settings.target]


def report_targets(specs: list[str], ruleset: RuleSet) -> tuple[list[str], dict[str, str]]:
    """`hip@5.2`, `npu` -> (["hip", "npu"], {"hip": "5.2"})."""
    resolved: list[str] = []
    versions: dict[str, str] = {}
    for spec in specs:
        try:
            name, version, warning = ruleset.parse_target(spec)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if warning:
            warn(warning)
        resolved.append(name)
        if version:
            versions[name] = version
    return list(dict.fromkeys(resolved)), versions
