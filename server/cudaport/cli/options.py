"""The settings a command runs with: the configuration resolved with the command line on top, and the targets
`--target hip@5.2,npu` names."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..i18n import t
from ..knowledge.filekinds import language_for
from ..knowledge.ruleset import RuleSet, load_ruleset
from ..model import records
from ..model.source import SkipFile, SourceFile
from ..project.config import ConfigError, Settings, load_settings
from ..project.files import SourcePath
from .common import UsageError, split_list, use_language, warn

if TYPE_CHECKING:
    from ..engine.resultcache import ResultCache


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
    for key in ("respect-gitignore", "force-exclude"):
        if getattr(args, key.replace("-", "_"), None) is not None:
            overrides[key] = getattr(args, key.replace("-", "_"))
    if args.extra_rules:
        overrides["extra-rules"] = [str(Path(p).resolve()) for p in args.extra_rules]
    if getattr(args, "fail_on", None) and args.fail_on != "never":
        overrides["fail-on"] = args.fail_on
    if getattr(args, "style", None):
        overrides["fix-style"] = args.style
    start = Path(args.paths[0]) if getattr(args, "paths", None) else Path.cwd()
    if reads_stdin(args):
        start = Path(args.stdin_filename).resolve().parent if getattr(args, "stdin_filename", None) else Path.cwd()
    if args.config is not None and not args.config.is_file():
        raise ConfigError(t("{path}: configuration file not found", path=args.config))
    settings = load_settings(start=start if start.exists() else Path.cwd(), config=args.config, overrides=overrides)
    use_language(args, settings)
    for warning in settings.warnings:
        warn(warning)
    if settings.extra_rules:
        load_ruleset(settings.extra_rules)  # fail early, with the file name, on broken extra rule files
    return settings


def target_settings(args: argparse.Namespace, specs: list[str]) -> tuple[Settings, list[str]]:
    """The settings and targets for `--target hip@5.2,npu` (check and report): the configuration is resolved
    (and checked) as for the first target, and each target's release pins its version."""
    args.target = specs[0] if specs else None
    settings = settings_from_args(args)
    # the rule data names the targets given; none given, a run answered by the results cache never loads it
    targets, versions = report_targets(specs, load_ruleset(settings.extra_rules)) if specs else ([], {})
    if versions:
        settings = records.replace(settings, versions={**settings.versions, **versions})
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


def reads_stdin(args: argparse.Namespace) -> bool:
    """`cudaport check -` (or fix): the text on standard input, as editors' format-on-save and hooks hand it."""
    paths = getattr(args, "paths", None) or []
    if "-" in paths and len(paths) > 1:
        raise UsageError(t("`-` (standard input) cannot be given with other paths"))
    return paths == ["-"]


def stdin_source(args: argparse.Namespace) -> tuple[SourcePath, SourceFile]:
    """The buffer on standard input, named as the file --stdin-filename says it stands for (its kind decides the
    analyzer; the label is what findings name)."""
    name = getattr(args, "stdin_filename", None)
    if not name:
        raise UsageError(t("give --stdin-filename with `-`: the name says what kind of file the text is (kernel.cu)"))
    language = language_for(name)
    if language is None:
        raise UsageError(t("{name}: not a kind of file cudaport reads (rules/files.toml lists them)", name=repr(name)))
    try:
        source = SourceFile.from_bytes(sys.stdin.buffer.read())
    except SkipFile as exc:
        raise UsageError(t("standard input: {reason}", reason=exc)) from None
    return SourcePath(name, Path(name).resolve(), language), source


def results_cache(args: argparse.Namespace, settings: Settings) -> ResultCache | None:
    """The results cache of this run (None: --no-cache, standard input, or a folder that cannot be written, said
    as a warning)."""
    if reads_stdin(args):
        return None
    from ..engine.resultcache import open_cache

    return open_cache(settings, option=getattr(args, "cache_dir", None), disabled=args.no_cache, warn=warn)


def say_cache(args: argparse.Namespace, cache: ResultCache | None) -> None:
    """--verbose: what the results cache did, on stderr."""
    if getattr(args, "verbose", False):
        print(f"cudaport: {cache.summary()}" if cache is not None else t("cudaport: cache: off"), file=sys.stderr)
