"""The output of `check`, written as the run streams each file's results: text, JSON, GitHub annotations, SARIF
and --statistics, for one target or several. Text and GitHub lines go out as each file is done; JSON and SARIF
stay one valid document each, so what must precede the findings (counts, the rules used) is written at the end,
with the findings waiting in a temporary spool (on disk past a few megabytes), never in memory as objects."""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import IO, Any, Protocol, TextIO

from .. import __version__, i18n
from ..i18n import t, tn
from ..knowledge.ruleset import Rule, RuleSet
from ..model.findings import Difficulty
from ..model.results import Diagnostic, FileFindings, RunTotals
from ..model.words import difficulty_count, difficulty_counts, difficulty_word
from .excerpts import excerpt
from .ruledoc import rule_markdown, rule_text
from .statistics import ApiStatisticsSection


@functools.lru_cache(maxsize=1)
def _unicode_json() -> Any:
    """One encoder for every diagnostic (json.dumps with an option builds a new one per call), made when a JSON
    or SARIF section first writes: a text run loads no json."""
    import json

    return json.JSONEncoder(ensure_ascii=False)


SPOOL_IN_MEMORY = 4 * 1024 * 1024  # characters a spool keeps in memory before it moves to a temporary file


class _Spool:
    """Text written now and copied out later: in memory up to SPOOL_IN_MEMORY characters, then in a temporary
    file (tempfile, and what it loads, only for an output that large)."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._size = 0
        self._file: IO[str] | None = None

    def write(self, text: str) -> None:
        if self._file is not None:
            self._file.write(text)
            return
        self._parts.append(text)
        self._size += len(text)
        if self._size > SPOOL_IN_MEMORY:
            import tempfile

            self._file = tempfile.TemporaryFile(mode="w+", encoding="utf-8", newline="\n")  # noqa: SIM115
            self._file.write("".join(self._parts))
            self._parts = []

    def lines(self) -> Iterable[str]:
        if self._file is None:
            return io.StringIO("".join(self._parts))
        self._file.seek(0)
        return self._file

    def copy_to(self, out: TextIO) -> None:
        if self._file is None:
            for part in self._parts:
                out.write(part)
            return
        self._file.seek(0)
        while chunk := self._file.read(1 << 16):
            out.write(chunk)

    def close(self) -> None:
        self._parts = []
        if self._file is not None:
            self._file.close()


class _Section(Protocol):
    """One target's part of the output."""

    def add(self, result: FileFindings) -> None: ...

    def write(self, totals: RunTotals, out: TextIO) -> None:
        """Everything of the section not written yet, now that the run is over."""
        ...

    def close(self) -> None: ...


# ---- text -------------------------------------------------------------------------------------------------------
_COLORS = {
    Difficulty.PORTABLE: "2",
    Difficulty.MECHANICAL: "36",
    Difficulty.MANUAL: "33",
    Difficulty.BLOCKER: "31",
}


def _paint(text: str, code: str, color: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if color else text


class _Lines:
    """A section made of lines per finding: written to the output at once (`sink` is the output) or spooled for
    later (a second target's block follows the first's whole)."""

    def __init__(self, sink: TextIO | None) -> None:
        self._spool = _Spool() if sink is None else None
        self._sink: TextIO | _Spool = sink if sink is not None else self._spool  # type: ignore[assignment]

    def _flush_into(self, out: TextIO) -> None:
        if self._spool is not None:
            self._spool.copy_to(out)
            self._spool.close()
            self._spool = None

    def close(self) -> None:
        if self._spool is not None:
            self._spool.close()


class TextSection(_Lines):
    """A line per finding (`concise`), or with the source line and a caret under the finding (`full`, as ruff's);
    `quiet`: the findings only, no summary."""

    def __init__(
        self, sink: TextIO | None, show_portable: bool, color: bool, full: bool = False, quiet: bool = False
    ) -> None:
        super().__init__(sink)
        self.show_portable = show_portable
        self.color = color
        self.full = full
        self.quiet = quiet
        self.hidden = 0

    def add(self, result: FileFindings) -> None:
        write = self._sink.write
        for diag in result.diagnostics:
            if diag.difficulty == Difficulty.PORTABLE and not self.show_portable:
                self.hidden += 1
                continue
            code = _paint(diag.rule, _COLORS[diag.difficulty], self.color)
            level = _paint(f"[{difficulty_word(diag.difficulty)}]", _COLORS[diag.difficulty], self.color)
            fixable = t(" (fixable)") if diag.finding.fixable else ""
            where = f"{diag.path}:{diag.line}:{diag.column}"
            write(f"{where}: {code} {level} {diag.finding.message}{fixable}{_cell(diag)}\n")
            text = result.excerpts.get(diag.line) if self.full else None
            if text is not None:
                paint = _COLORS[diag.difficulty] if self.color else ""
                write("\n".join(excerpt(diag, text, paint)) + "\n\n")

    def write(self, totals: RunTotals, out: TextIO) -> None:
        self._flush_into(out)
        if not self.quiet:
            out.write(summary_line(totals, self.hidden) + "\n")


def summary_line(totals: RunTotals, hidden_portable: int = 0) -> str:
    text = t(
        "Found {findings} in {with_findings} of {files} for {target} ({counts})",
        findings=tn("{count} finding", "{count} findings", totals.findings),
        with_findings=totals.files_with_findings,
        files=tn("{count} file", "{count} files", totals.files_scanned),
        target=totals.target,
        counts=difficulty_counts(totals.summary()),
    )
    fixable = totals.fixable
    if fixable:
        text += t("; {count} fixable with `cudaport fix`", count=fixable)
    if hidden_portable:
        text += t("; {count} portable not shown (--show-portable)", count=hidden_portable)
    text += t(".")
    if totals.excluded:
        shown = ", ".join(label for label, _ in totals.excluded[:_EXCLUDED_SHOWN])
        more = len(totals.excluded) - _EXCLUDED_SHOWN
        if more > 0:
            shown = t("{paths} and {count} more", paths=shown, count=more)
        text += "\n" + t(
            "Excluded, although they hold sources: {paths} (build trees, ignore files and the configuration's exclude "
            "decide; `cudaport report` says why for each).",
            paths=shown,
        )
    return text


_EXCLUDED_SHOWN = 8


def _cell(diag: Diagnostic) -> str:
    """Where a notebook finding is among the cells (its line and column are the notebook file's)."""
    data = diag.finding.data
    return (
        " " + t("[cell {cell}, line {line}]", cell=data["cell"], line=data.get("cell_line", ""))
        if "cell" in data
        else ""
    )


# ---- github -----------------------------------------------------------------------------------------------------
_GITHUB_LEVEL = {
    Difficulty.PORTABLE: "notice",
    Difficulty.MECHANICAL: "notice",
    Difficulty.MANUAL: "warning",
    Difficulty.BLOCKER: "error",
}


class GithubSection(_Lines):
    def __init__(self, sink: TextIO | None, show_portable: bool) -> None:
        super().__init__(sink)
        self.show_portable = show_portable

    def add(self, result: FileFindings) -> None:
        for diag in result.diagnostics:
            if diag.difficulty == Difficulty.PORTABLE and not self.show_portable:
                continue
            self._sink.write(_github_line(diag) + "\n")

    def write(self, totals: RunTotals, out: TextIO) -> None:
        self._flush_into(out)


def _github_line(diag: Diagnostic) -> str:
    props = ",".join(
        f"{key}={_gh_property(str(value))}"
        for key, value in (
            ("file", diag.path),
            ("line", diag.line),
            ("col", diag.column),
            ("endLine", diag.end_line),
            ("endColumn", diag.end_column),
            ("title", f"cudaport {diag.rule} ({difficulty_word(diag.difficulty)})"),
        )
    )
    return f"::{_GITHUB_LEVEL[diag.difficulty]} {props}::{_gh_data(diag.finding.message)}"


def _gh_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(value: str) -> str:
    return _gh_data(value).replace(":", "%3A").replace(",", "%2C")


# ---- json -------------------------------------------------------------------------------------------------------
class JsonSection:
    """One target's document: one diagnostic per line, readable and diffable, and every line encoded by json's C
    encoder (an indented dump goes through the pure-Python one, which dominated `check --format json` on large
    trees). `compact`: the same document on one line, as it sits among several targets' runs."""

    def __init__(self, compact: bool = False) -> None:
        self.compact = compact
        self._spool = _Spool()
        self._items = 0

    def add(self, result: FileFindings) -> None:
        if not result.diagnostics:
            return
        separator, indent = (", ", "") if self.compact else (",\n", "  ")
        quote = _string_encoder()
        items = [indent + _json_diagnostic(diag, quote) for diag in result.diagnostics]
        self._spool.write((separator if self._items else "") + separator.join(items))  # a file's at once
        self._items += len(items)

    def write(self, totals: RunTotals, out: TextIO) -> None:
        import json

        head = {"version": 1, "target": totals.target, "files_scanned": totals.files_scanned}
        out.write(json.dumps(head, ensure_ascii=False)[:-1] + ', "diagnostics": [')
        if not self.compact:
            out.write("\n")
        self._spool.copy_to(out)
        self._spool.close()
        excluded = [{"path": label, "reason": reason} for label, reason in totals.excluded]
        if self.compact:
            out.write(f'], "summary": {json.dumps(totals.summary())}, ')
            out.write(f'"excluded": {json.dumps(excluded, ensure_ascii=False)}}}')
        else:
            out.write(f'{chr(10) if self._items else ""}], "summary": {json.dumps(totals.summary())}, ')
            out.write(f'"excluded": {json.dumps(excluded)}}}\n')

    def close(self) -> None:
        self._spool.close()


def _json_diagnostic(diag: Diagnostic, quote: Callable[[str], str]) -> str:
    """One diagnostic as JSON text, written field by field (`quote`: _string_encoder()): json's encoder takes a
    dict's text through more steps than these fixed fields need (it was a fifth of a warm `check --format json` of
    cuda-samples). The text is what json.dumps(..., ensure_ascii=False) makes of the same fields in this order
    (tests/test_output_formats.py)."""
    finding = diag.finding
    data = finding.data
    symbol, replacement, fix, dual = finding.symbol, finding.replacement, finding.fix, finding.dual
    cell = f'"cell": {int(data["cell"])}, "cell_line": {int(data.get("cell_line", "0"))}, ' if "cell" in data else ""
    return (
        f'{{{cell}"path": {quote(diag.path)}, "line": {diag.line}, "column": {diag.column}, '
        f'"end_line": {diag.end_line}, "end_column": {diag.end_column}, "rule": {quote(finding.rule)}, '
        f'"difficulty": "{finding.difficulty.label}", "severity": "{finding.severity.label}", '
        f'"message": {quote(finding.message)}, "symbol": {"null" if symbol is None else quote(symbol)}, '
        f'"replacement": {"null" if replacement is None else quote(replacement)}, '
        f'"fixable": {"true" if fix is not None and fix.is_safe else "false"}, '
        f'"dual_stack_fixable": {"true" if dual is not None and dual.is_safe else "false"}}}'
    )


@functools.lru_cache(maxsize=1)
def _string_encoder() -> Callable[[str], str]:
    """json's C function that quotes a string as its encoder does with ensure_ascii=False (loaded with json)."""
    from json.encoder import encode_basestring

    return encode_basestring


# ---- sarif ------------------------------------------------------------------------------------------------------
_SARIF_LEVEL = {
    Difficulty.PORTABLE: "note",
    Difficulty.MECHANICAL: "note",
    Difficulty.MANUAL: "warning",
    Difficulty.BLOCKER: "error",
}
_SARIF_HEAD = '{"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": ['


class SarifSection:
    """One SARIF run. A result's `ruleIndex` points into the rules the run used, known only at the end: each
    result waits in the spool as its rule and its JSON without the index, which is added as it is copied out."""

    def __init__(self, ruleset: RuleSet) -> None:
        self.ruleset = ruleset
        self._spool = _Spool()

    def add(self, result: FileFindings) -> None:
        for diag in result.diagnostics:
            text = _unicode_json().encode(_sarif_result(diag))
            self._spool.write(f"{diag.rule}\t{text[:-1]}\n")  # the JSON never holds a raw newline

    def write(self, totals: RunTotals, out: TextIO) -> None:
        import json

        ruleset = self.ruleset
        rules = [ruleset.rules[code] for code in sorted(totals.by_rule) if code in ruleset.rules]
        index = {rule.code: i for i, rule in enumerate(rules)}
        run = {
            "tool": {
                "driver": {
                    "name": "cudaport",
                    "version": __version__,
                    "semanticVersion": __version__,
                    "informationUri": "https://github.com/cudaport/cudaport",
                    "rules": [_sarif_rule(rule, totals.target, ruleset.rule_url(rule.code)) for rule in rules],
                }
            },
            **_sarif_language(),
            "columnKind": "unicodeCodePoints",
            "properties": {
                "target": totals.target,
                "filesScanned": totals.files_scanned,
                "summary": totals.summary(),
            },
            "results": [],
        }
        text = json.dumps(run, ensure_ascii=False)
        out.write(text[: -len("[]}")] + "[")
        first = True
        for line in self._spool.lines():
            rule, _, item = line.rstrip("\n").partition("\t")
            position = index.get(rule)
            out.write(f"{'' if first else ', '}{item}{'' if position is None else f', {_RULE_INDEX}{position}'}}}")
            first = False
        out.write("]}")
        self._spool.close()

    def close(self) -> None:
        self._spool.close()


_RULE_INDEX = '"ruleIndex": '


def _sarif_language() -> dict[str, str]:
    """run.language (SARIF 2.1.0 §3.14.26: the language of the log's messages, English when absent), given when
    the messages are in another."""
    language = i18n.language()
    return {} if language == i18n.ENGLISH else {"language": language}


def _sarif_rule(rule: Rule, target: str, url: str) -> dict[str, Any]:
    difficulty = rule.difficulty.get(target) or rule.unmapped.get(target) or Difficulty.MANUAL
    described = _sarif_descriptions(rule, english=False)
    properties: dict[str, Any] = {"tags": ["cuda", "portability", target]}
    if i18n.language() != i18n.ENGLISH:
        properties["english"] = _sarif_descriptions(rule, english=True)  # for tools that want the original
    return {
        "id": rule.code,
        "name": rule.name,
        **described,
        "helpUri": url,
        "defaultConfiguration": {"level": _SARIF_LEVEL[difficulty]},
        "properties": properties,
    }


def _sarif_descriptions(rule: Rule, english: bool) -> dict[str, Any]:
    tr = i18n.english if english else t
    return {
        "shortDescription": {"text": tr(rule.summary)},
        "fullDescription": {"text": tr(rule.docs.what or rule.summary)},
        "help": {"text": rule_text(rule, english=english), "markdown": rule_markdown(rule, english=english)},
    }


def _sarif_result(diag: Diagnostic) -> dict[str, Any]:
    """A SARIF result without its ruleIndex (SarifSection adds it)."""
    finding = diag.finding
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "level": _SARIF_LEVEL[finding.difficulty],
        "message": {"text": finding.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": diag.path.replace("\\", "/")},
                    "region": {
                        "startLine": diag.line,
                        "startColumn": diag.column,
                        "endLine": diag.end_line,
                        "endColumn": diag.end_column,
                    },
                }
            }
        ],
        "properties": {"difficulty": finding.difficulty.label, "symbol": finding.symbol},
    }
    if finding.replacement is not None:
        result["properties"]["replacement"] = finding.replacement
    return result


# ---- statistics -------------------------------------------------------------------------------------------------
class StatisticsSection:
    """Counts per rule and per difficulty, from the totals alone."""

    def __init__(self, ruleset: RuleSet, as_json: bool, compact: bool = False) -> None:
        self.ruleset = ruleset
        self.as_json = as_json
        self.compact = compact

    def add(self, result: FileFindings) -> None:
        pass

    def write(self, totals: RunTotals, out: TextIO) -> None:
        out.write(render_statistics(totals, self.ruleset, self.as_json, self.compact))

    def close(self) -> None:
        pass


def render_statistics(totals: RunTotals, ruleset: RuleSet, as_json: bool = False, compact: bool = False) -> str:
    import json

    rows = sorted(totals.by_rule.items(), key=lambda item: (-item[1], item[0]))
    levels = totals.levels
    if as_json:
        data = {
            "target": totals.target,
            "files_scanned": totals.files_scanned,
            "rules": [
                {
                    "code": code,
                    "name": ruleset.rules[code].name if code in ruleset.rules else "",
                    "count": count,
                    "fixable": totals.fixable_by_rule.get(code, 0),
                    "difficulty": {d.label: levels[code].get(d, 0) for d in Difficulty},
                }
                for code, count in rows
            ],
            "summary": totals.summary(),
        }
        return json.dumps(data, ensure_ascii=False) if compact else json.dumps(data, indent=2) + "\n"
    width = max((len(str(count)) for _, count in rows), default=1)
    lines = []
    for code, count in rows:
        name = ruleset.rules[code].name if code in ruleset.rules else ""
        fixable = totals.fixable_by_rule.get(code, 0)
        mark = "  " + t("[{count} fixable]", count=fixable) if fixable else ""
        spread = t(", ").join(difficulty_count(levels[code][d], d) for d in reversed(Difficulty) if levels[code].get(d))
        lines.append(f"{count:>{width}}  {code}  {name}  ({spread}){mark}")
    summary = totals.summary()
    lines.append("")
    by_difficulty = t(", ").join(
        t("{difficulty} {count}", difficulty=difficulty_word(d), count=summary[d.label]) for d in Difficulty
    )
    lines.append(t("By difficulty: {counts}", counts=by_difficulty))
    lines.append(
        t("Files scanned: {files}; findings: {findings}", files=totals.files_scanned, findings=totals.findings)
    )
    return "\n".join(lines) + "\n"


# ---- the whole output -------------------------------------------------------------------------------------------
class CheckOutput:
    """`check`'s output for one or more targets, fed the run's stream (`add`) and closed with its totals
    (`finish`). One target: that target's text, GitHub lines, JSON document or SARIF log. Several: the text of
    each in turn under a `== Target ==` heading, GitHub lines of each in turn, one SARIF log with a run per
    target, or JSON `{"version": 1, "targets": [...], "runs": [...]}` of the one-target documents."""

    def __init__(
        self,
        out: TextIO,
        fmt: str,
        targets: Sequence[str],
        rules: Callable[[], RuleSet],
        statistics: bool | str = False,
        show_portable: bool = False,
        color: bool = False,
        quiet: bool = False,
    ) -> None:
        self.out = out
        self.fmt = "concise" if fmt == "text" else fmt
        self.targets = list(targets)
        self._rules = rules
        self.statistics = statistics
        self.quiet = quiet
        self.several = len(self.targets) > 1
        self.sections: dict[str, _Section] = {}
        for position, target in enumerate(self.targets):
            # the first target's lines go straight out (under its heading, written now); the others' wait
            sink = out if position == 0 else None
            self.sections[target] = self._section(sink, show_portable, color)
        if self.streams and self.several and fmt != "github":
            out.write(f"== {t(self.ruleset.targets[self.targets[0]].label)} ==\n")

    @functools.cached_property
    def ruleset(self) -> RuleSet:
        """The rule data, loaded when a format names rules or targets (a text or JSON run answered by the results
        cache never needs it)."""
        return self._rules()

    @property
    def streams(self) -> bool:
        """Whether findings are written as they come (text and GitHub lines)."""
        return not self.statistics and self.fmt in ("full", "concise", "github")

    def _section(self, sink: TextIO | None, show_portable: bool, color: bool) -> _Section:
        if self.statistics == "api":
            return ApiStatisticsSection(as_json=self.fmt == "json", compact=self.several)
        if self.statistics:
            return StatisticsSection(self.ruleset, as_json=self.fmt == "json", compact=self.several)
        if self.fmt == "json":
            return JsonSection(compact=self.several)
        if self.fmt == "sarif":
            return SarifSection(self.ruleset)
        if self.fmt == "gitlab":
            from .ci_formats import GitlabSection  # hashlib, and xml for JUnit: only for the format that uses it

            return GitlabSection(compact=self.several)
        if self.fmt == "junit":
            from .ci_formats import JunitSection

            return JunitSection(show_portable)
        if self.fmt == "github":
            return GithubSection(sink, show_portable)
        return TextSection(sink, show_portable, color, full=self.fmt == "full", quiet=self.quiet)

    def add(self, result: FileFindings) -> None:
        self.sections[result.target].add(result)

    def finish(self, totals: Mapping[str, RunTotals]) -> None:
        out = self.out
        if self.fmt in ("gitlab", "junit") and not self.statistics:  # one document for all the targets
            from .ci_formats import GITLAB_HEAD, GITLAB_TAIL, JUNIT_TAIL, GitlabSection, JunitSection, junit_head

            out.write(GITLAB_HEAD if self.fmt == "gitlab" else junit_head(totals.values()))
            first = True
            for target in self.targets:
                section = self.sections[target]
                assert isinstance(section, (GitlabSection, JunitSection))
                first = section.write_items(totals[target], out, first)
            out.write(GITLAB_TAIL if self.fmt == "gitlab" else JUNIT_TAIL)
            return
        documents = self.fmt in ("json", "sarif") if not self.statistics else self.fmt == "json"
        if documents and self.fmt == "sarif":
            out.write(_SARIF_HEAD)
        elif documents and self.several:
            import json

            out.write(f'{{"version": 1, "targets": {json.dumps(self.targets, ensure_ascii=False)}, "runs": [')
        headings = self.several and not documents and self.fmt != "github"
        for position, target in enumerate(self.targets):
            if position and documents:
                out.write(", ")
            elif headings and (position or not self.streams):  # a streamed first block has its heading already
                out.write(f"{chr(10) if position else ''}== {t(self.ruleset.targets[target].label)} ==\n")
            self.sections[target].write(totals[target], out)
        if documents and (self.fmt == "sarif" or self.several):
            out.write("]}\n")

    def close(self) -> None:
        for section in self.sections.values():
            section.close()
