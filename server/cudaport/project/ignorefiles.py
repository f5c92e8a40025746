"""The project's own files, as git and ruff count them: `.gitignore`, `.ignore` and `.git/info/exclude` (and the
global excludes file git reads), with git's pattern rules.

As in ruff (`respect-gitignore`), `.ignore` files count everywhere and the git ones only inside a git checkout; a
folder's file applies below that folder, a deeper one overrides a shallower one, the last matching line of a file
decides, and `!pattern` takes a path back (not below a folder that is ignored: the walk never enters it)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..model.records import record
from .walking import listed_names

_GIT_FILES = (".gitignore",)
_ALWAYS = (".ignore",)


@record(frozen=True, slots=True)
class Rule:
    regex: re.Pattern[str]
    negated: bool
    directory_only: bool
    text: str  # as written, for messages


@record(frozen=True, slots=True)
class RuleFile:
    """The rules of one ignore file; `base`: the folder its patterns are relative to."""

    base: Path
    name: str  # how messages name it: ".gitignore", "build/.gitignore", ".git/info/exclude"
    rules: tuple[Rule, ...]

    @property
    def prefix(self) -> str:
        """What the paths under `base` start with, as text."""
        text = str(self.base)
        return text if text.endswith(os.sep) else text + os.sep


def parse(text: str) -> tuple[Rule, ...]:
    rules: list[Rule] = []
    for raw in text.splitlines():
        line = _strip(raw)
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated or line.startswith("\\!") or line.startswith("\\#"):
            line = line[1:]
        directory_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        regex = _translate(line, anchored)
        if regex is not None:
            rules.append(Rule(regex, negated, directory_only, raw.strip()))
    return tuple(rules)


def _strip(line: str) -> str:
    """Trailing spaces go unless escaped with a backslash."""
    stripped = line.rstrip("\r\n")
    while stripped.endswith(" ") and not stripped.endswith("\\ "):
        stripped = stripped[:-1]
    return stripped


def _translate(pattern: str, anchored: bool) -> re.Pattern[str] | None:
    """A regex over a path relative to the rule file's folder (`/`-separated, no leading slash): the entry a walk
    meets, never what lies below it (the walk does not go into an ignored folder; a folder named explicitly is
    walked, as ripgrep and ruff do)."""
    out = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                before = i == 0 or pattern[i - 1] == "/"
                after = i + 2 == n or pattern[i + 2] == "/"
                if before and after:
                    if i + 2 == n:
                        out.append(".*")  # `a/**`: everything inside
                        i += 2
                        continue
                    out.append("(?:.*/)?")  # `**/` : any folders, or none
                    i += 3
                    continue
            out.append("[^/]*")
            while i < n and pattern[i] == "*":
                i += 1
            continue
        if c == "?":
            out.append("[^/]")
        elif c == "[":
            end = pattern.find("]", i + 2 if i + 1 < n and pattern[i + 1] in "!^" else i + 1)
            if end == -1:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : end]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    body = "".join(out)
    prefix = "" if anchored else "(?:.*/)?"
    try:
        return re.compile(f"{prefix}{body}", re.DOTALL)
    except re.error:
        return None


def read_rules(base: Path, file: Path, name: str) -> RuleFile | None:
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    rules = parse(text)
    return RuleFile(base, name, rules) if rules else None


def global_excludes() -> Path | None:
    """The excludes file git reads for every repository: core.excludesFile, else $XDG_CONFIG_HOME/git/ignore."""
    home = Path.home()
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    for config in (home / ".gitconfig", xdg / "git" / "config"):
        configured = _excludes_file_setting(config)
        if configured:
            return Path(os.path.expanduser(configured))
    default = xdg / "git" / "ignore"
    return default if default.is_file() else None


def _excludes_file_setting(config: Path) -> str | None:
    try:
        text = config.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line.strip("[]").strip().lower()
        elif section == "core" and "=" in line:
            key, _, value = line.partition("=")
            if key.strip().lower() == "excludesfile":
                return value.strip().strip('"')
    return None


class IgnoreRules:
    """The ignore files that apply under a folder, read as a walk goes down. Thread-unsafe; cheap to build."""

    def __init__(self) -> None:
        self._folders: dict[str, tuple[RuleFile, ...]] = {}  # folder (as text) -> the rule files that apply in it
        self._checkouts: dict[Path, Path | None] = {}

    def checkout(self, folder: Path) -> Path | None:
        """The git checkout `folder` is in (a folder holding `.git`), if any."""
        if folder in self._checkouts:
            return self._checkouts[folder]
        # a walk asks for each folder below one it asked about: the answer above is known
        found: Path | None = folder
        if not (folder / ".git").exists():
            found = None if folder.parent == folder else self.checkout(folder.parent)
        self._checkouts[folder] = found
        return found

    def files_for(self, folder: Path) -> tuple[RuleFile, ...]:
        """The rule files that apply to what lies in `folder`, outermost first."""
        known = self._folders.get(str(folder))
        if known is not None:
            return known
        checkout = self.checkout(folder)
        inherited: tuple[RuleFile, ...]
        if checkout is not None and folder == checkout:
            inherited = self._checkout_files(checkout)  # a checkout's rules start at its top
        elif folder.parent != folder:
            inherited = self.files_for(folder.parent)
        else:
            inherited = ()
        own: list[RuleFile] = []
        names = (*(_GIT_FILES if checkout is not None else ()), *_ALWAYS)
        present = listed_names(str(folder))  # a walk's listing tells which of them exist: no open() per folder
        for name in names:
            if present is not None and name not in present:
                continue
            found = read_rules(folder, folder / name, self._label(folder, name, checkout))
            if found is not None:
                own.append(found)
        result = (*inherited, *own)
        self._folders[str(folder)] = result
        return result

    def _checkout_files(self, checkout: Path) -> tuple[RuleFile, ...]:
        out = []
        excludes = global_excludes()
        if excludes is not None:
            found = read_rules(checkout, excludes, str(excludes))
            if found is not None:
                out.append(found)
        info = read_rules(checkout, checkout / ".git" / "info" / "exclude", ".git/info/exclude")
        if info is not None:
            out.append(info)
        return tuple(out)

    @staticmethod
    def _label(folder: Path, name: str, checkout: Path | None) -> str:
        if checkout is not None:
            try:
                relative = folder.relative_to(checkout).as_posix()
            except ValueError:
                relative = ""
            return f"{relative}/{name}" if relative and relative != "." else name
        return str(folder / name)

    def ignored(self, path: Path | str, is_dir: bool) -> tuple[str, str] | None:
        """(the ignore file, its line) that leaves `path` out, or None. `path` must be absolute (and normalised)."""
        decided: tuple[str, str] | None = None
        text = str(path)
        parent = os.path.dirname(text)
        rule_files = self._folders.get(parent)  # a walk's files share their folder: no Path made for each
        if rule_files is None:
            rule_files = self.files_for(Path(parent))
        for rule_file in rule_files:
            base = rule_file.prefix
            if not text.startswith(base):
                continue
            relative = text[len(base) :].replace(os.sep, "/")
            if not relative:
                continue  # the rule file's own folder (Path.relative_to gives "." there, which no pattern matches)
            for rule in reversed(rule_file.rules):
                if rule.directory_only and not is_dir:
                    continue
                if rule.regex.fullmatch(relative) is not None:
                    decided = None if rule.negated else (rule_file.name, rule.text)
                    break
        return decided

    def ignored_here_or_above(self, path: Path, is_dir: bool) -> tuple[str, str] | None:
        """As `ignored`, for `path` or any folder above it inside its checkout (a file opened in an editor)."""
        absolute = Path(os.path.abspath(path))
        found = self.ignored(absolute, is_dir)
        checkout = self.checkout(absolute.parent)
        folder = absolute.parent
        while found is None and folder != folder.parent and checkout is not None and folder != checkout:
            found = self.ignored(folder, True)
            folder = folder.parent
        return found
