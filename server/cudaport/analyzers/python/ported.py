"""Python findings reviewed in their surroundings, after the analyzer has found them one by one.

- **Dual-stack code.** A collection, dict, comparison, condition or `if`/`elif` chain that already names the
  target (`"npu"`, `"hccl"`, `torch_npu`, `is_npu_available()`, `torch.version.hip`, ...) beside the CUDA one runs on
  the target already: its findings are `portable` and never rewritten. So is code after an early-exit branch for the
  target (`if is_npu_available(): return "npu"` then `return "cuda"`).
- **Device tables without the target.** A dict keyed by device types, or a list of them, that names other
  accelerators but not the target needs an entry added, not its CUDA entry rewritten: `manual`.
- **Probes of CUDA-only paths.** `torch.cuda.is_available()` deciding whether a CUDA extension, nvcc, Triton,
  TensorRT, flash-attn or apex path runs (or inside a class or function that names one) must not become the
  target's probe: that would run CUDA-built code on the target. `manual`, never rewritten.
- **One device per line.** When some `torch.cuda` use on a line cannot be rewritten, none of them is, so the line
  never mixes two devices (`torch.mlu.is_available() and torch.cuda.<no counterpart>()`).
- **Optional imports.** A CUDA-only library imported under `try/except ImportError` (or behind an availability
  check) is not a blocker: the program runs without it and only loses that fast path.

The words and patterns are data: `[target.*] ported-words` and `[cuda-only]` in `rules/python.toml`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tree_sitter import Node

from ...i18n import N_, t
from ...model.findings import Difficulty, Finding
from ..common.syntax import text
from .strings import string_value, table_keys

_WORD = re.compile(rb"[A-Za-z0-9]+")
_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_STRING = re.compile(rb"[rbfuRBFU]*(?:\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*')")
_CAMEL = re.compile(rb"(?<=[a-z0-9])(?=[A-Z])")
_CAPITALS = re.compile(rb"[A-Z]{2,}(?=[A-Z][a-z]|[^A-Za-z]|$)")
_COLLECTIONS = frozenset({"list", "tuple", "set"})
# How a message names a collection that already names the target, and one of devices without it.
_THIS = {"list": N_("this list"), "tuple": N_("this tuple"), "set": N_("this set")}
_OF_DEVICES = {"dictionary": N_("a table of devices"), "list": N_("a list of devices")}
_OF_DEVICES |= {"tuple": N_("a tuple of devices"), "set": N_("a set of devices")}
_CONDITIONS = frozenset({"comparison_operator", "boolean_operator", "not_operator"})
_SCOPES = frozenset({"function_definition", "class_definition"})
_EXITS = frozenset({"return_statement", "raise_statement", "continue_statement", "break_statement"})
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException", "OSError"})
_BODY_LIMIT = 4096  # bytes of a branch body read for CUDA-only markers
# Findings that choose the device a line runs on: they are rewritten together or not at all.
_DEVICE_KINDS = frozenset({"api", "method", "device_string", "backend"})


@dataclass(frozen=True, slots=True)
class PortedKnowledge:
    words: Mapping[str, frozenset[bytes]]  # target -> lower-case words naming it
    labels: Mapping[str, str]  # target -> how a message names its device ("npu")
    probes: frozenset[str]  # qualified names of CUDA availability probes
    cuda_only: re.Pattern[bytes]  # code naming a CUDA-only path
    cuda_only_names: re.Pattern[str]  # a def or class name that says it is one
    cuda_class_names: re.Pattern[str]  # a class name (or a base's) that says it is one
    generic_devices: frozenset[str]  # device types that are no accelerator of their own (cpu, meta)
    device_types: frozenset[str]  # every device type a table may be keyed by


def load_ported_knowledge(table: Mapping[str, Any], device_types: frozenset[str]) -> PortedKnowledge:
    targets = table.get("target", {})
    words = {
        name: frozenset(str(w).lower().encode() for w in entry.get("ported-words", []))
        for name, entry in targets.items()
    }
    labels = {name: str(entry.get("device", name)) for name, entry in targets.items()}
    only = table.get("cuda-only", {})
    markers = "|".join(str(p) for p in only.get("code", [])) or r"(?!)"
    names = "|".join(str(p) for p in only.get("names", [])) or r"(?!)"
    class_names = "|".join(str(p) for p in only.get("class-names", [])) or r"(?!)"
    return PortedKnowledge(
        words=words,
        labels=labels,
        probes=frozenset(str(p) for p in only.get("probes", [])),
        cuda_only=re.compile(markers.encode(), re.IGNORECASE),
        cuda_only_names=re.compile(names, re.IGNORECASE),
        cuda_class_names=re.compile(class_names, re.IGNORECASE),
        generic_devices=frozenset(str(d) for d in only.get("generic-devices", ["cpu", "meta"])),
        device_types=device_types,
    )


def words_of(data: bytes) -> set[bytes]:
    """Lower-case words of code, split at underscores, dots and case changes (`is_npu_available`, `torch_npu`,
    `NPUAccelerator` all give `npu`)."""
    out: set[bytes] = set()
    for word in _WORD.findall(data):
        out.add(word.lower())
        out.update(part.lower() for part in _CAMEL.split(word))
        out.update(run.lower() for run in _CAPITALS.findall(word))  # NPUAccelerator: NPU
    return out


class Reviewer:
    """Reviews one file's findings for one target."""

    def __init__(
        self, know: PortedKnowledge, data: bytes, root: Node, target: str, platform: str, path: Path | None = None
    ) -> None:
        self.path = path  # the file, for the names of its siblings (None: an unsaved buffer)
        self._siblings: set[str] | None = None
        self._module_classes: set[str] | None = None
        self.know = know
        self.data = data
        self.root = root
        self.target = target
        self.words = know.words.get(target, frozenset())
        self.target_devices = frozenset(w.decode() for w in self.words)
        self.label = know.labels.get(target, target)  # the device type: "npu"
        self.platform = platform  # how people call it: "Ascend NPU"

    def review(self, findings: list[Finding]) -> None:
        twins = self._twins(findings)  # before any finding is left alone: a statement's fixes are judged together
        for finding in findings:
            node = self.root.descendant_for_byte_range(finding.start, finding.end)
            if node is None:
                continue
            if finding.data.get("kind") == "import":
                self._optional_import(finding, node)
            if finding.difficulty == Difficulty.PORTABLE:
                continue
            where = self._names_target(node) or _twin_of(node, twins)
            if where is not None:
                _leave(finding, Difficulty.PORTABLE, where)
                continue
            table = self._table_without_target(node) or self._other_accelerator_sides(node)
            if table is not None:
                _leave(finding, Difficulty.MANUAL, table)
                continue
            probe = self._cuda_only_probe(finding, node)
            if probe is not None:
                _leave(finding, Difficulty.MANUAL, probe)
        self._one_device_per_line(findings)

    # ---- dual-stack ---------------------------------------------------------------------------------------------
    def _names(self, node: Node | None) -> bool:
        if node is None or not self.words:
            return False
        return bool(words_of(self.data[node.start_byte : node.end_byte]) & self.words)

    def _names_strongly(self, node: Node | None) -> bool:
        """Names the target in a way `fix` never writes: inside an identifier of the user's (`is_npu_available`,
        `torch_npu`, `USE_NPU`), not as the device string or the `torch.npu` module a rewrite produces. Code
        after our own rewrite must not look dual-stack to the next check."""
        if node is None or not self.words:
            return False
        code = _STRING.sub(b"", self.data[node.start_byte : node.end_byte])
        for identifier in _IDENTIFIER.findall(code):
            if identifier.lower() not in self.words and words_of(identifier) & self.words:
                return True
        return False

    def _names_target(self, node: Node) -> str | None:
        """What around `node` already names the target: a collection, dict, condition or branch."""
        current: Node | None = node
        child = node
        while current is not None and current.type != "module":
            kind = current.type
            if kind in _COLLECTIONS and any(
                self._device_string(element) in self.target_devices for element in current.named_children
            ):
                return self._already(_THIS[kind])
            if kind == "dictionary" and any(_key_type(key) in self.target_devices for key in table_keys(current)):
                return self._already(N_("this table"))
            if kind in _CONDITIONS and self._names(current):
                return self._already(N_("this condition"))
            if kind == "conditional_expression":
                parts = current.named_children
                if len(parts) == 3 and self._names(parts[1]):
                    return self._already(N_("the condition of this expression"))
            if kind == "if_statement" and self._other_branch_names(current, child):
                return self._already(N_("this if/elif chain"))
            if kind == "class_definition":
                side = self._abstraction_side(current)
                if side is not None:
                    return side
            if kind == "block" and self._early_exit_before(current, child):
                return self._already(N_("an earlier branch of this block"))
            if kind in ("block", "module") and self._chain_before(current, child):
                return self._already(N_("an earlier step of this detection chain"))
            child = current
            current = current.parent
        return self._file_side()

    def _file_side(self) -> str | None:
        """The file itself is the CUDA side of a device abstraction (`cuda_accelerator.py` beside
        `npu_accelerator.py`)."""
        devices = self._file_side_devices()
        if devices is not None and self.label in devices:
            assert self.path is not None
            return self._side_exists(self.path.name)
        return None

    def _already(self, where: str) -> str:
        return t("{where} already provides for {platform}, so it runs there", where=t(where), platform=self.platform)

    def _abstraction_side(self, class_node: Node) -> str | None:
        """A class naming CUDA (`CUDA_Accelerator`) whose file or module has a sibling for the target
        (`npu_accelerator.py`, `class NPUAccelerator`): the CUDA side of a device abstraction."""
        devices = self._class_side_devices(class_node)
        if devices is not None and devices & self.target_devices:
            return self._side_exists(text(class_node.child_by_field_name("name") or class_node))
        return None

    def _class_side_devices(self, class_node: Node) -> set[str] | None:
        """For a class naming CUDA, the devices its sibling files and the module's other classes name; None for
        any other class, and on a target whose device is "cuda" (HIP: the CUDA side is the target's side)."""
        name = class_node.child_by_field_name("name")
        if self.label == "cuda" or name is None or b"cuda" not in words_of(text(name).encode()):
            return None
        return self._sibling_devices() | self._module_class_devices()

    def _file_side_devices(self) -> set[str] | None:
        """For a file naming CUDA (`cuda_accelerator.py`), the devices its sibling files name; else None."""
        if self.label == "cuda" or self.path is None or b"cuda" not in words_of(self.path.stem.encode()):
            return None
        return self._sibling_devices()

    def _side_exists(self, name: str) -> str:
        return t(
            "`{name}` is the CUDA side of a device abstraction whose {device} side exists, so {platform} runs that one",
            name=name,
            device=self.label,
            platform=self.platform,
        )

    def _side_missing(self, name: str, devices: set[str]) -> str | None:
        others = self._other_accelerators(devices)
        if not others:
            return None
        return t(
            "`{name}` is the CUDA side of a device abstraction with {devices} sides: add a {device} side beside it "
            "rather than rewrite this one",
            name=name,
            devices=", ".join(others),
            device=self.label,
        )

    def _other_accelerators(self, devices: Iterable[str]) -> list[str]:
        """The device types among `devices` that are accelerators other than CUDA (not cpu or meta), sorted."""
        known = self.know.device_types
        return sorted({d for d in devices if d in known and d != "cuda" and d not in self.know.generic_devices})

    def _sibling_devices(self) -> set[str]:
        """Device types named by the files beside this one (`npu_accelerator.py` names npu)."""
        if self._siblings is None:
            self._siblings = set()
            if self.path is not None:
                try:
                    names = [p.stem for p in self.path.parent.iterdir() if p.suffix == ".py" and p != self.path]
                except OSError:
                    names = []
                for stem in names:
                    self._siblings |= {w.decode() for w in words_of(stem.encode())} & self.know.device_types
        return self._siblings

    def _module_class_devices(self) -> set[str]:
        """Device types named by the module's top-level classes (`class NPUAccelerator`), worked out once."""
        if self._module_classes is None:
            self._module_classes = set()
            for node in self.root.named_children:
                name = node.child_by_field_name("name") if node.type == "class_definition" else None
                if name is not None:
                    self._module_classes |= {w.decode() for w in words_of(text(name).encode())} & self.know.device_types
        return self._module_classes

    def _other_accelerator_sides(self, node: Node) -> str | None:
        """The CUDA side of a device abstraction whose other sides are accelerators but not the target."""
        current: Node | None = node
        while current is not None:
            devices = self._class_side_devices(current) if current.type == "class_definition" else None
            name = current.child_by_field_name("name") if devices is not None else None
            missing = self._side_missing(text(name), devices) if name is not None and devices is not None else None
            if missing is not None:
                return missing
            current = current.parent
        devices = self._file_side_devices()
        if devices is not None and self.path is not None:
            return self._side_missing(self.path.name, devices)
        return None

    def _other_branch_names(self, statement: Node, child: Node) -> bool:
        """Another branch's condition of this `if`/`elif` chain names the target (`if is_npu_available(): ...
        elif torch.cuda.is_available(): ...`), or the finding's own condition does in the user's words. A
        branch's own device-string or `torch.npu` test is not enough: that is what a fix leaves behind."""
        for condition, branch in _branches(statement):
            inside = branch is not None and branch.start_byte <= child.start_byte < branch.end_byte
            inside = inside or (condition is not None and condition.start_byte <= child.start_byte < condition.end_byte)
            if inside and self._names_strongly(condition):
                return True
            if not inside and condition is not None and self._names(condition):
                return True
        return False

    def _twins(self, findings: list[Finding]) -> dict[tuple[int, int], str]:
        """The statements with fixes whose neighbour already does for the target what they do for CUDA, and why."""
        out: dict[tuple[int, int], str] = {}
        seen: set[tuple[int, int]] = set()
        for finding in findings:
            if finding.fix is None:
                continue
            node = self.root.descendant_for_byte_range(finding.start, finding.end)
            statement = _statement_of(node) if node is not None else None
            if statement is None or (statement.start_byte, statement.end_byte) in seen:
                continue
            key = (statement.start_byte, statement.end_byte)
            seen.add(key)
            why = self._twin(statement, findings)
            if why is not None:
                out[key] = why
        return out

    def _twin(self, statement: Node, findings: list[Finding]) -> str | None:
        """The statement beside this one already does for the target what this one does for CUDA: it names the
        target in the user's own words where this one names CUDA (`self.is_npu = ...` beside `self.is_cuda = ...`),
        or this one, rewritten, would be a copy of it (or assign what it assigns)."""
        neighbours = [n for n in (_sibling(statement, -1), _sibling(statement, 1)) if n is not None]
        if not neighbours:
            return None
        own_cuda = self._names_cuda_strongly(statement)
        rewritten: bytes | None = None
        for neighbour in neighbours:
            if own_cuda and self._names_strongly(neighbour):
                return self._beside(neighbour)
            if rewritten is None:
                rewritten = self._rewritten(statement, findings)
            if rewritten is None:
                continue
            theirs = self.data[neighbour.start_byte : neighbour.end_byte]
            if _spaceless(rewritten) == _spaceless(theirs) or _same_value(statement, rewritten, neighbour, theirs):
                return self._beside(neighbour)
        return None

    def _beside(self, neighbour: Node) -> str:
        line = self.data.count(b"\n", 0, neighbour.start_byte) + 1
        return t(
            "the statement beside it (line {line}) already does this for {platform}, so it runs there",
            line=line,
            platform=self.platform,
        )

    def _names_cuda_strongly(self, node: Node) -> bool:
        """An identifier of the user's says CUDA (`is_cuda`, `use_cuda`, `CUDA_OK`), not CUDA's own `cuda` module."""
        code = _STRING.sub(b"", self.data[node.start_byte : node.end_byte])
        return any(i.lower() != b"cuda" and b"cuda" in words_of(i) for i in _IDENTIFIER.findall(code))

    def _rewritten(self, statement: Node, findings: list[Finding]) -> bytes | None:
        """The statement's text with the safe fixes of the findings in it applied (None: none has one)."""
        lo, hi = statement.start_byte, statement.end_byte
        edits = sorted(
            {
                e
                for f in findings
                if f.fix is not None and f.fix.is_safe and lo <= f.start < hi
                for e in f.fix.edits
                if lo <= e.start and e.end <= hi
            },
            key=lambda e: (e.start, e.end),
        )
        if not edits:
            return None
        out, position = [], lo
        for edit in edits:
            if edit.start < position:
                return None
            out += [self.data[position : edit.start], edit.text.encode()]
            position = edit.end
        out.append(self.data[position:hi])
        return b"".join(out)

    def _device_string(self, node: Node) -> str:
        return _key_type(string_value(node)) if node.type == "string" else ""

    def _early_exit_before(self, block: Node, child: Node) -> bool:
        """An `if` earlier in `block` that names the target and leaves the block (`return "npu"`)."""
        if block.type != "block":
            return False
        for statement in block.named_children:
            if statement.start_byte >= child.start_byte:
                return False
            if statement.type != "if_statement" or not any(self._names_strongly(c) for c in _conditions(statement)):
                continue
            if _leaves(statement):
                return True
        return False

    def _chain_before(self, block: Node, child: Node) -> bool:
        """`child` is an `if` of a chain of separate `if`s with one condition (`if accelerator is None:` ...), and
        an earlier one names the target: a device detection that already knows it."""
        if child.type != "if_statement":
            return False
        condition = child.child_by_field_name("condition")
        if condition is None:
            return False
        wanted = text(condition)
        for statement, other in _earlier_ifs(block, child):
            if text(other) == wanted and self._names_strongly(statement):
                return True
        return False

    # ---- tables of devices without the target ---------------------------------------------------------------------
    def _table_without_target(self, node: Node) -> str | None:
        condition = self._devices_condition(node)
        if condition is not None:
            return condition
        current: Node | None = node
        for _ in range(4):  # the finding is a key, a value or an element, not something deep inside one
            if current is None:
                return None
            if current.type == "dictionary":
                devices = [_key_type(k) for k in table_keys(current)]
            elif current.type in _COLLECTIONS:
                devices = [self._device_string(e) for e in current.named_children]
            else:
                current = current.parent
                continue
            others = self._other_accelerators(devices)
            if "cuda" in devices and others:
                listed = ", ".join(f'"{d}"' for d in others)
                return t(
                    '{what} ({listed} beside "cuda") with no "{device}" entry: add one rather than rewrite its "cuda" '
                    "entry",
                    what=t(_OF_DEVICES[current.type]),
                    listed=listed,
                    device=self.label,
                )
            return None
        return None

    def _devices_condition(self, node: Node) -> str | None:
        """`t == "cuda" or t == "npu"` on mlu: a condition over several accelerators without the target, which
        needs the target added, not its CUDA test rewritten."""
        if node.type != "string" or node.parent is None or node.parent.type != "comparison_operator":
            return None
        top = node.parent
        while top.parent is not None and top.parent.type in ("boolean_operator", "parenthesized_expression"):
            top = top.parent
        if top.type not in ("boolean_operator", "parenthesized_expression"):
            return None
        devices = set()
        stack = [top]
        while stack:
            current = stack.pop()
            if current.type == "string":
                devices.add(self._device_string(current))
            elif current.type in ("boolean_operator", "comparison_operator", "parenthesized_expression"):
                stack.extend(current.named_children)
        others = self._other_accelerators(devices)
        if "cuda" not in devices or not others:
            return None
        listed = ", ".join(f'"{d}"' for d in others)
        return t(
            'a condition on devices ({listed} beside "cuda") without "{device}": add it rather than rewrite "cuda"',
            listed=listed,
            device=self.label,
        )

    # ---- probes of CUDA-only paths ----------------------------------------------------------------------------------
    def _cuda_only_probe(self, finding: Finding, node: Node) -> str | None:
        if finding.symbol not in self.know.probes or finding.fix is None:
            return None
        reason = self._cuda_only_around(node)
        if reason is None:
            return None
        return t(
            "this probe decides whether a CUDA-only path runs ({reason}): decide which {platform} path replaces that "
            "one, or keep the probe (it is false on {platform}, which keeps the path off)",
            reason=reason,
            platform=self.platform,
        )

    def _cuda_only_around(self, node: Node) -> str | None:
        current: Node | None = node.parent
        branch_seen = False
        while current is not None and current.type != "module":
            kind = current.type
            if kind in _SCOPES:
                name = current.child_by_field_name("name")
                is_class = kind == "class_definition"
                if name is not None and self._cuda_only_name(text(name), is_class):
                    return t("in `{name}`", name=text(name))
                bases = current.child_by_field_name("superclasses")
                if bases is not None and any(self._cuda_only_name(b, True) for b in re.findall(r"\w+", text(bases))):
                    return t("in a subclass of `{bases}`", bases=text(bases).strip("()"))
            elif (kind in _CONDITIONS or kind == "conditional_expression") and not branch_seen:
                found = self._marker(current)
                if found:
                    return t("beside `{marker}`", marker=found)
            elif kind in ("if_statement", "elif_clause", "while_statement") and not branch_seen:
                branch_seen = True  # the nearest branch decides; further out, only names of scopes count
                found = self._marker(current.child_by_field_name("condition"))
                body = current.child_by_field_name("consequence") or current.child_by_field_name("body")
                found = found or self._marker(body, _BODY_LIMIT)
                if found:
                    return t("`{marker}` in its branch", marker=found)
            current = current.parent
        return None

    def _cuda_only_name(self, name: str, is_class: bool) -> bool:
        if self.know.cuda_only_names.search(name):
            return True
        return is_class and bool(self.know.cuda_class_names.search(name))

    def _marker(self, node: Node | None, limit: int | None = None) -> str | None:
        if node is None:
            return None
        end = node.end_byte if limit is None else min(node.end_byte, node.start_byte + limit)
        match = self.know.cuda_only.search(self.data, node.start_byte, end)
        return match.group(0).decode("utf-8", "replace") if match else None

    # ---- optional imports ---------------------------------------------------------------------------------------
    def _optional_import(self, finding: Finding, node: Node) -> None:
        if finding.difficulty < Difficulty.MANUAL or not _optional(node):
            return
        finding.difficulty = Difficulty.MANUAL
        finding.message = t(
            "{message}; the import is optional (the program runs without it), so only its fast path is lost",
            message=finding.message,
        )

    # ---- one device per line --------------------------------------------------------------------------------------
    def _one_device_per_line(self, findings: list[Finding]) -> None:
        lines: dict[int, list[Finding]] = defaultdict(list)
        line, counted = 0, 0  # newlines up to `counted`: one pass over the buffer for all findings
        for finding in sorted(findings, key=lambda f: f.start):
            if finding.data.get("kind") in _DEVICE_KINDS:
                line += self.data.count(b"\n", counted, finding.start)
                counted = finding.start
                lines[line].append(finding)
        for group in lines.values():
            stuck = [f for f in group if (f.fix is None or not f.fix.is_safe) and f.difficulty >= Difficulty.MANUAL]
            moving = [f for f in group if f.fix is not None and f.fix.is_safe]
            if not stuck or not moving:
                continue
            blocking = stuck[0].symbol
            for finding in moving:
                _leave(
                    finding,
                    Difficulty.MANUAL,
                    t(
                        "the line keeps one device: `{name}` on it needs a person first, then port them together",
                        name=blocking,
                    ),
                )


def _twin_of(node: Node, twins: dict[tuple[int, int], str]) -> str | None:
    statement = _statement_of(node) if twins else None
    return twins.get((statement.start_byte, statement.end_byte)) if statement is not None else None


_SIMPLE_STATEMENTS = frozenset({"expression_statement", "return_statement", "assert_statement"})
_SPACES = re.compile(rb"\s+")


def _statement_of(node: Node) -> Node | None:
    """The simple statement `node` is in, if it stands directly in a block or the module."""
    current: Node | None = node
    while current is not None and current.type not in _SIMPLE_STATEMENTS:
        if current.type in ("block", "module", "function_definition", "class_definition"):
            return None
        current = current.parent
    if current is None or current.parent is None or current.parent.type not in ("block", "module"):
        return None
    return current


def _sibling(statement: Node, step: int) -> Node | None:
    """The statement before (-1) or after (1) `statement` in its block, comments passed over."""
    current = statement.prev_named_sibling if step < 0 else statement.next_named_sibling
    while current is not None and current.type == "comment":
        current = current.prev_named_sibling if step < 0 else current.next_named_sibling
    return current if current is not None and current.type in _SIMPLE_STATEMENTS else None


def _same_value(statement: Node, rewritten: bytes, neighbour: Node, theirs: bytes) -> bool:
    """Both assign, and the rewrite would give this one's value the neighbour's (`self.on_gpu = <probe>` beside
    `self.on_npu = <the same probe for the target>`): the neighbour is the target's twin."""
    mine, other = _assignment(statement), _assignment(neighbour)
    if mine is None or other is None:
        return False
    value = mine.child_by_field_name("right")
    their_value = other.child_by_field_name("right")
    if value is None or their_value is None:
        return False
    offset = statement.start_byte
    shift = len(rewritten) - (statement.end_byte - statement.start_byte)
    mine_text = rewritten[value.start_byte - offset : value.end_byte - offset + shift]
    their_text = theirs[their_value.start_byte - neighbour.start_byte : their_value.end_byte - neighbour.start_byte]
    return _spaceless(mine_text) == _spaceless(their_text)


def _assignment(statement: Node) -> Node | None:
    inner = statement.named_children[0] if statement.named_children else None
    return inner if inner is not None and inner.type == "assignment" else None


def _spaceless(code: bytes) -> bytes:
    return _SPACES.sub(b"", code)


def _leave(finding: Finding, difficulty: Difficulty, why: str) -> None:
    """The finding stays, without a fix, at `difficulty`, saying why."""
    finding.fix = None
    finding.replacement = None
    finding.difficulty = difficulty
    finding.message = t("`{name}` is left as it is: {why}", name=finding.symbol, why=why)
    finding.data = {**finding.data, "reviewed": "left"}


def _key_type(key: str) -> str:
    return key.split(":", 1)[0].lower()


def _branches(statement: Node) -> list[tuple[Node | None, Node | None]]:
    """(condition, body) of each branch of an `if` statement: the `if`, every `elif`, the `else`."""
    out: list[tuple[Node | None, Node | None]] = [
        (statement.child_by_field_name("condition"), statement.child_by_field_name("consequence"))
    ]
    for clause in statement.named_children:
        if clause.type == "elif_clause":
            out.append((clause.child_by_field_name("condition"), clause.child_by_field_name("consequence")))
        elif clause.type == "else_clause":
            out.append((None, clause.child_by_field_name("body")))
    return out


def _conditions(statement: Node) -> list[Node]:
    return [condition for condition, _ in _branches(statement) if condition is not None]


def _optional(node: Node) -> bool:
    """An import inside `try:` whose handlers catch an import failure, or under an availability check."""
    current: Node | None = node
    while current is not None and current.type not in ("module", "function_definition", "class_definition"):
        parent = current.parent
        if parent is not None and parent.type == "try_statement" and current.type == "block":
            for clause in parent.named_children:
                if clause.type != "except_clause":
                    continue
                caught = [c for c in clause.named_children if c.type != "block"]
                if not caught or any(set(re.findall(r"\w+", text(c))) & _IMPORT_ERRORS for c in caught):
                    return True
        if parent is not None and parent.type == "if_statement" and current.type == "block":
            condition = parent.child_by_field_name("condition")
            if condition is not None and _AVAILABILITY.search(text(condition)):
                return True
        if current.type == "block" and _checked_before(current, node):
            return True
        current = parent
    return False


_AVAILABILITY = re.compile(r"available|^has_|\bHAS_|installed")


def _earlier_ifs(block: Node, node: Node) -> Iterator[tuple[Node, Node]]:
    """The `if` statements of `block` before `node`, with their conditions."""
    for statement in block.named_children:
        if statement.start_byte >= node.start_byte:
            return
        if statement.type == "if_statement":
            condition = statement.child_by_field_name("condition")
            if condition is not None:
                yield statement, condition


def _checked_before(block: Node, node: Node) -> bool:
    """`if not is_bnb_available(): return False` earlier in the block: what follows runs only with the library."""
    for statement, condition in _earlier_ifs(block, node):
        if _AVAILABILITY.search(text(condition)) and _leaves(statement):
            return True
    return False


def _leaves(statement: Node) -> bool:
    """The `if` body ends by leaving the block (`return`, `raise`, `continue`, `break`)."""
    body = statement.child_by_field_name("consequence")
    last = body.named_children[-1] if body is not None and body.named_children else None
    return last is not None and last.type in _EXITS
