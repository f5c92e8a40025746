"""Core value types shared by the engine and every front end."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, TypedDict

from ..i18n import t
from .records import field, record


class Difficulty(enum.IntEnum):
    """How much work a finding means for the chosen target, ordered by cost."""

    PORTABLE = 0
    MECHANICAL = 1
    MANUAL = 2
    BLOCKER = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, value: str) -> Difficulty:
        try:
            return cls[value.strip().upper()]
        except KeyError:
            names = ", ".join(d.label for d in cls)
            raise ValueError(
                t("unknown difficulty {value} (expected one of: {names})", value=repr(value), names=names)
            ) from None


class Severity(enum.IntEnum):
    """Editor severity; values follow LSP's DiagnosticSeverity numbering."""

    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, value: str) -> Severity:
        text = value.strip().upper()
        aliases = {"INFO": "INFORMATION", "WARN": "WARNING"}
        try:
            return cls[aliases.get(text, text)]
        except KeyError:
            names = ", ".join(s.label for s in cls)
            raise ValueError(
                t("unknown severity {value} (expected one of: {names})", value=repr(value), names=names)
            ) from None


DEFAULT_SEVERITY: dict[Difficulty, Severity] = {
    Difficulty.PORTABLE: Severity.HINT,
    Difficulty.MECHANICAL: Severity.INFORMATION,
    Difficulty.MANUAL: Severity.WARNING,
    Difficulty.BLOCKER: Severity.ERROR,
}


class Applicability(enum.Enum):
    """Whether `fix` may apply an edit without a person looking (ruff's safe/unsafe split)."""

    SAFE = "safe"
    UNSAFE = "unsafe"


@record(frozen=True, slots=True)
class Edit:
    """Replace bytes [start, end) of the analysed buffer with `text`."""

    start: int
    end: int
    text: str


class FixStyle(enum.Enum):
    """How `fix` ports: rename the CUDA names to the target's (the tree then builds for the target only), or keep
    them and add what the target needs beside them (one tree that builds for both: the migration guides' route C)."""

    RENAME = "rename"
    DUAL_STACK = "dual-stack"

    @classmethod
    def parse(cls, value: str) -> FixStyle:
        try:
            return cls(value.strip().lower())
        except ValueError:
            names = ", ".join(s.value for s in cls)
            raise ValueError(
                t("unknown fix style {value} (expected one of: {names})", value=repr(value), names=names)
            ) from None


@record(frozen=True, slots=True)
class CompatEntry:
    """One thing the project's generated portability file must provide for a dual-stack fix to build on the target.

    kind: "name" (a `#define` of a CUDA function, type, enum value, macro or member to the target's name), "call" (a
    function-like `#define` for a call whose counterpart takes other arguments; `target` names the CUDA function
    again, and the rule data's call templates give the body), "header" (a CUDA header and the target's; `core` says
    it comes with either runtime and goes straight into the header), or "python" (a function of the generated
    Python helper module, `target` its name)."""

    kind: str
    cuda: str
    target: str
    core: bool = False


@record(frozen=True, slots=True)
class Fix:
    title: str
    edits: tuple[Edit, ...]
    applicability: Applicability = Applicability.SAFE
    # What the project's portability header (or Python helper module) must provide for these edits to build
    # on the target; only dual-stack fixes have any.
    compat: tuple[CompatEntry, ...] = ()

    @property
    def is_safe(self) -> bool:
        return self.applicability is Applicability.SAFE

    def moved(self, edits: tuple[Edit, ...]) -> Fix:
        """The same fix with its edits at new offsets (the buffer changed around them)."""
        return Fix(self.title, edits, self.applicability, self.compat)


if TYPE_CHECKING:

    class FindingData(TypedDict, total=False):
        """Extra facts about a finding that front ends show (hover, report); never needed to apply a fix."""

        kind: str  # what was found: "function", "type", "include", "kernel", "launch", "warp", "import", "api", ...
        library: str  # the symbol table it comes from (cuda_runtime, cublas, headers, ...)
        ported: str  # "1": the code around it already runs on the target (a dual-stack branch, a shim)
        reviewed: str  # "left": the Python review kept it as it is (a device table, a CUDA-only probe)
        held: str  # "1": a portability header mapping the name does not make this use build (a call that fits no
        # template of its counterpart, an overload the target merges): it stays for a person whatever maps it
        withheld: str  # why its rewrite is not offered: the result would not be the same program (cudaport.consistency)
        cell: str  # a notebook finding: the cell it is in (1-based, as Jupyter counts) ...
        cell_line: str  # ... and its line there (1-based)
        operators: str  # an operator-coverage finding: the ATen operators the plugin lacks (comma-separated) ...
        plugin: str  # ... and the plugin release that lacks them (`torch_npu 2.14.0`)

else:
    # At run time a TypedDict is a dict, and making the class compiles each of its annotations: a millisecond of
    # every start.
    FindingData = dict


@record(slots=True)
class Finding:
    """One CUDA dependency at one place in one buffer (byte offsets into the analysed UTF-8 buffer)."""

    rule: str
    start: int
    end: int
    difficulty: Difficulty
    message: str
    symbol: str
    replacement: str | None = None
    fix: Fix | None = None
    severity: Severity = Severity.HINT
    data: FindingData = field(default_factory=lambda: FindingData())
    # The offset of the line whose number the message gives as "(line N)" (code already ported names the directive
    # that selects the target's path): an editor session keeps that number current as lines come and go above it.
    line_ref: int | None = None
    # The dual-stack fix: the code keeps its CUDA names and builds for both (None: not possible, so the finding stays
    # for a person in that style). A fix whose edits build for CUDA too (a cast both accept) is both at once.
    dual: Fix | None = None

    @property
    def fixable(self) -> bool:
        return self.fix is not None and self.fix.is_safe

    @property
    def dual_fixable(self) -> bool:
        """Whether `fix --style dual-stack` fixes it (the report's route C counts these)."""
        return self.dual is not None and self.dual.is_safe

    def fix_for(self, style: FixStyle) -> Fix | None:
        return self.dual if style is FixStyle.DUAL_STACK else self.fix

    def sort_key(self) -> tuple[int, int, str]:
        return (self.start, self.end, self.rule)
