"""`check --show-files` and `--show-settings`: what a run would read and the settings it would run with (ruff's
options of the same names), to see why a file is read or not, or where a setting comes from."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from ..engine.runner import collect
from ..i18n import t
from ..project.config import Settings
from .common import EXIT_OK


def show_files(paths: Sequence[str], settings: Settings) -> int:
    """The files a check would read, one per line with its kind; then the folders left out that hold sources, and
    why."""
    run = collect(list(paths), settings)
    for file in run.files:
        sys.stdout.write(f"{file.label}\t{file.language}\n")
    for excluded in run.excluded:
        sys.stdout.write(t("{path}\tleft out: {reason}", path=excluded.label, reason=excluded.reason) + "\n")
    for skipped in run.skipped:
        sys.stdout.write(t("{path}\tskipped: {reason}", path=skipped.label, reason=skipped.reason) + "\n")
    return EXIT_OK


def settings_text(settings: Settings, targets: Sequence[str]) -> str:
    """The resolved settings, as `key = value` lines in the configuration's own keys."""

    def listed(values: Sequence[str]) -> str:
        return "[" + ", ".join(f'"{v}"' for v in values) + "]"

    versions = {t: settings.versions.get(t, "") for t in targets}
    shown_targets = ", ".join(f"{t}@{v}" if v else t for t, v in versions.items())
    lines = [
        ("configuration file", str(settings.config_path) if settings.config_path else t("none")),
        ("root", str(settings.root)),
        ("target", shown_targets),
        ("select", listed(settings.select)),
        ("ignore", listed(settings.ignore)),
        ("exclude", listed(settings.exclude)),
        ("extend-exclude", listed(settings.extend_exclude)),
        ("respect-gitignore", "true" if settings.respect_gitignore else "false"),
        ("force-exclude", "true" if settings.force_exclude else "false"),
        ("severity", "{" + ", ".join(f"{k} = {v.label}" for k, v in settings.severity.items()) + "}"),
        ("max-file-size", str(settings.max_file_size)),
        ("fail-on", settings.fail_on.label),
        ("fix-style", settings.fix_style.value),
        ("compat-header", str(settings.compat_header_path)),
        ("device-helper", settings.device_helper),
        ("lang", settings.lang or t("from the environment")),
        ("extra-rules", listed([str(p) for p in settings.extra_rules])),
    ]
    return "".join(f"{key} = {value}\n" for key, value in lines)
