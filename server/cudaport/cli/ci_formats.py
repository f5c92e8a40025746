"""`check`'s output for CI systems besides GitHub's: GitLab's Code Quality report (a JSON array) and JUnit XML (a
test suite per file, a failing test case per finding), for one target or several in one document."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import TextIO
from xml.sax.saxutils import escape, quoteattr

from ..i18n import t
from ..model.findings import Difficulty
from ..model.results import Diagnostic, FileFindings, RunTotals
from ..model.words import difficulty_word

# GitLab's severities, by the work a finding means.
_GITLAB_SEVERITY = {
    Difficulty.PORTABLE: "info",
    Difficulty.MECHANICAL: "minor",
    Difficulty.MANUAL: "major",
    Difficulty.BLOCKER: "blocker",
}
GITLAB_HEAD = "["
GITLAB_TAIL = "\n]\n"
JUNIT_TAIL = "</testsuites>\n"


class _Spooled:
    """Items written to a temporary spool as files come, copied out when the document is closed."""

    def __init__(self) -> None:
        import tempfile

        self._file = tempfile.SpooledTemporaryFile(max_size=4 << 20, mode="w+", encoding="utf-8", newline="\n")  # noqa: SIM115
        self.items = 0

    def put(self, text: str) -> None:
        self._file.write(text + "\n")  # one item per line: no raw newline in an item
        self.items += 1

    def items_text(self) -> Iterable[str]:
        self._file.seek(0)
        for line in self._file:
            yield line.rstrip("\n")

    def close(self) -> None:
        self._file.close()


class GitlabSection:
    """One target's Code Quality issues (`check_name` is the rule; the fingerprint stays the same while the file,
    the rule, the symbol and the target do, so GitLab can tell which findings are new in a merge request)."""

    def __init__(self, compact: bool = False) -> None:
        self._spool = _Spooled()

    def add(self, result: FileFindings) -> None:
        for diag in result.diagnostics:
            self._spool.put(json.dumps(_gitlab_issue(diag, result.target), ensure_ascii=False))

    def write(self, totals: RunTotals, out: TextIO) -> None:
        self.write_items(totals, out, True)

    def write_items(self, totals: RunTotals, out: TextIO, first: bool) -> bool:
        for item in self._spool.items_text():
            out.write(("\n  " if first else ",\n  ") + item)
            first = False
        self._spool.close()
        return first

    def close(self) -> None:
        self._spool.close()


def _gitlab_issue(diag: Diagnostic, target: str) -> dict[str, object]:
    finding = diag.finding
    key = f"{target}\0{diag.path}\0{finding.rule}\0{finding.symbol}\0{diag.line}"
    return {
        "description": f"{finding.rule} [{difficulty_word(finding.difficulty)}] {finding.message} ({target})",
        "check_name": finding.rule,
        "fingerprint": hashlib.sha1(key.encode("utf-8", "surrogateescape")).hexdigest(),
        "severity": _GITLAB_SEVERITY[finding.difficulty],
        "location": {"path": diag.path, "lines": {"begin": diag.line, "end": diag.end_line}},
    }


class JunitSection:
    """One target's test suites: one per file with findings, a failing case per finding (portable ones only with
    --show-portable, and then as passing cases)."""

    def __init__(self, show_portable: bool) -> None:
        self.show_portable = show_portable
        self._spool = _Spooled()

    def add(self, result: FileFindings) -> None:
        shown = [d for d in result.diagnostics if self.show_portable or d.difficulty is not Difficulty.PORTABLE]
        if not shown:
            return
        failures = sum(1 for d in shown if d.difficulty is not Difficulty.PORTABLE)
        name = quoteattr(f"{result.path} ({result.target})")
        cases = "".join(_junit_case(d) for d in shown)
        self._spool.put(
            f'<testsuite name={name} tests="{len(shown)}" failures="{failures}" errors="0">{cases}</testsuite>'
        )

    def write(self, totals: RunTotals, out: TextIO) -> None:
        self.write_items(totals, out, True)

    def write_items(self, totals: RunTotals, out: TextIO, first: bool) -> bool:
        for item in self._spool.items_text():
            out.write("  " + item + "\n")
            first = False
        self._spool.close()
        return first

    def close(self) -> None:
        self._spool.close()


def _junit_case(diag: Diagnostic) -> str:
    finding = diag.finding
    name = quoteattr(f"{finding.rule} {finding.symbol} line {diag.line}, column {diag.column}")
    where = quoteattr(diag.path)
    if finding.difficulty is Difficulty.PORTABLE:
        return f'<testcase name={name} classname={where} file={where} line="{diag.line}"/>'
    message = quoteattr(f"{finding.rule} [{difficulty_word(finding.difficulty)}] {finding.message}")
    body = escape(f"{diag.path}:{diag.line}:{diag.column}: {finding.message}")
    return (
        f'<testcase name={name} classname={where} file={where} line="{diag.line}">'
        f"<failure message={message} type={quoteattr(finding.difficulty.label)}>{body}</failure></testcase>"
    )


def junit_head(totals: Iterable[RunTotals]) -> str:
    runs = list(totals)
    findings = sum(run.findings for run in runs)
    label = t("cudaport findings")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name={quoteattr(label)} tests="{findings}">\n'
