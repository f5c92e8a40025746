"""Inline assembly (`asm`, `asm volatile`, `__asm__`), in code and in macro bodies: which PTX it uses, what
replaces each instruction on the target (`rules/ptx.toml`), and a rewrite for one-instruction blocks."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from tree_sitter import Node

from ...i18n import t
from ...knowledge.ruleset import Outcome, tidy
from ...model.findings import Applicability, Difficulty, Edit, Finding, Fix
from ...model.records import record
from ..common.clex import literal_and_comment_spans, string_contents

if TYPE_CHECKING:
    from .scan import Scan

_ASM = re.compile(rb"(?<![\w$])(?:asm|__asm__|__asm)(?![\w$])")
_MNEMONIC = re.compile(r"(?:^|;|\{|\}|\\n|\n)\s*(?:@!?%?\w+\s+)?([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*)")
_PTX_RULE = "CP3001"
_PLACEHOLDER = re.compile(r"\{(\d+)\}")


@record(frozen=True, slots=True)
class Rewrite:
    template: re.Pattern[str]
    expression: str
    outputs: int = 1


@record(frozen=True, slots=True)
class PtxEntry:
    pattern: re.Pattern[str]
    name: str
    rule: str
    difficulty: Mapping[str, Difficulty]
    counterparts: Mapping[str, str]
    rewrite: Rewrite | None


@record(frozen=True, slots=True)
class PtxTable:
    entries: tuple[PtxEntry, ...]

    @classmethod
    def load(cls, table: Mapping[str, Any] | None, targets: Iterable[str]) -> PtxTable:
        entries = []
        for raw in (table or {}).get("ptx", []):
            rewrite = raw.get("rewrite")
            entries.append(
                PtxEntry(
                    pattern=re.compile(str(raw["match"])),
                    name=str(raw["name"]),
                    rule=str(raw.get("rule", _PTX_RULE)),
                    difficulty={k: Difficulty.parse(str(v)) for k, v in raw.get("difficulty", {}).items()},
                    counterparts={t: str(raw[t]) for t in targets if t in raw},
                    rewrite=Rewrite(
                        re.compile(str(rewrite["template"])),
                        str(rewrite["expression"]),
                        int(rewrite.get("outputs", 1)),
                    )
                    if rewrite
                    else None,
                )
            )
        return cls(tuple(entries))


@record(slots=True)
class AsmBlock:
    start: int
    end: int
    template: str
    outputs: list[str]
    inputs: list[str]
    in_macro: bool


def find_inline_asm(scan: Scan, table: PtxTable) -> Iterator[Finding]:
    if not scan.has(b"asm"):
        return
    seen_end = -1
    for match in (m for lo, hi in scan.windows for m in _ASM.finditer(scan.data, lo, hi)):
        start, end = match.span()
        if start < seen_end or not scan.wanted(start):
            continue
        found = scan.code_node(start, end)
        if found is None:
            continue
        node, in_macro = found
        block = _macro_block(scan.data, node, start) if in_macro else _tree_block(scan.data, node)
        if block is None:
            continue
        seen_end = block.end
        template = block.template.replace("\\n", "\n").replace("\\t", " ")
        if not template.strip():
            continue  # `asm volatile("" ::: "memory")` is a compiler barrier, not PTX
        yield _finding(scan, table, block, template)


def _tree_block(data: bytes, node: Node) -> AsmBlock | None:
    expression = node.parent
    if expression is None or expression.type != "gnu_asm_expression":
        return None
    code = expression.child_by_field_name("assembly_code")
    if code is None:
        return None

    def operands(kind: str) -> list[str]:
        values = []
        for child in expression.children:
            if child.type == kind:
                for operand in child.children_by_field_name("operand"):
                    value = operand.child_by_field_name("value")
                    if value is not None:
                        values.append(data[value.start_byte : value.end_byte].decode("utf-8", "replace"))
        return values

    return AsmBlock(
        start=expression.start_byte,
        end=expression.end_byte,
        template=string_contents(code.text or b""),
        outputs=operands("gnu_asm_output_operand_list"),
        inputs=operands("gnu_asm_input_operand_list"),
        in_macro=False,
    )


def _macro_block(data: bytes, node: Node, start: int) -> AsmBlock | None:
    """An asm statement inside a #define body: from the keyword to its balanced closing parenthesis."""
    body_end = node.end_byte
    segment = data[start:body_end]
    skip = literal_and_comment_spans(segment)
    depth = 0
    end = None
    index = 0
    span_index = 0
    while index < len(segment):
        while span_index < len(skip) and skip[span_index][1] <= index:
            span_index += 1
        if span_index < len(skip) and skip[span_index][0] <= index:
            index = skip[span_index][1]
            continue
        char = segment[index : index + 1]
        if char == b"(":
            depth += 1
        elif char == b")":
            depth -= 1
            if depth == 0:
                end = index + 1
                break
        index += 1
    if end is None:
        return None
    text = segment[:end]
    template_part = text.split(b":", 1)[0]
    return AsmBlock(start, start + end, string_contents(template_part), [], [], in_macro=True)


def _finding(scan: Scan, table: PtxTable, block: AsmBlock, template: str) -> Finding:
    target = scan.context.target
    label = t(scan.ruleset.targets[target].label) if target in scan.ruleset.targets else target
    matched = [entry for entry in table.entries if entry.pattern.search(template)]
    snippet = _snippet(template)
    if matched:
        rule_code = "CP4002" if any(e.rule == "CP4002" for e in matched) else _PTX_RULE
        rule = scan.ruleset.rule(rule_code)
        default = rule.unmapped.get(target, Difficulty.MANUAL)
        difficulty = max(entry.difficulty.get(target, default) for entry in matched)
        parts = []
        for entry in matched:
            counterpart = entry.counterparts.get(target, "")
            parts.append(
                t("{name} → `{counterpart}`", name=t(entry.name), counterpart=t(counterpart))
                if counterpart
                else t("{name} has no {target} counterpart", name=t(entry.name), target=label)
            )
        message = t(
            "{subject} `{snippet}`: {parts}", subject=t(rule.subject), snippet=snippet, parts=t("; ").join(parts)
        )
        known = scan.ruleset.targets.get(target)
        warpless = known is not None and not known.lanes  # Ascend, Cambricon: the whole kernel is rewritten
        if warpless and rule.counterparts.get(target) and not any(e.counterparts.get(target) for e in matched):
            message = t(
                "{message}; the port needs {counterpart}", message=message, counterpart=t(rule.counterparts[target])
            )
    else:
        rule = scan.ruleset.rule(_PTX_RULE)
        difficulty = rule.unmapped.get(target, Difficulty.MANUAL)
        mnemonics = sorted({m.group(1) for m in _MNEMONIC.finditer(template)})[:6]
        listed = ", ".join(f"`{m}`" for m in mnemonics) or "PTX"
        instead = rule.counterparts.get(target)
        message = t(
            "{subject} `{snippet}` ({listed}) must be rewritten for {target}: {instead}",
            subject=t(rule.subject),
            snippet=snippet,
            listed=listed,
            target=label,
            instead=t(instead) if instead else t("a builtin, plain C++ or AMDGCN assembly"),
        )
    message = tidy(message)
    outcome = Outcome(difficulty, None, message, False)
    fix = _rewrite_fix(block, template, matched) if all(e.counterparts.get(target) for e in matched) else None
    if fix is not None:
        outcome = Outcome(difficulty, fix.edits[0].text, message, True)
    return scan.finding(rule.code, block.start, block.end, outcome, "asm", fix, {"kind": "inline_asm"})


def _rewrite_fix(block: AsmBlock, template: str, matched: list[PtxEntry]) -> Fix | None:
    if block.in_macro or len(matched) != 1 or matched[0].rewrite is None:
        return None
    rewrite = matched[0].rewrite
    if not rewrite.template.fullmatch(template.strip()) or len(block.outputs) != rewrite.outputs:
        return None
    operands = block.outputs + block.inputs
    needed = {int(n) for n in _PLACEHOLDER.findall(rewrite.expression)}
    if any(n >= len(operands) or n < rewrite.outputs for n in needed) or len(block.inputs) != len(needed):
        return None
    expression = _PLACEHOLDER.sub(lambda m: operands[int(m.group(1))], rewrite.expression)
    text = f"{block.outputs[0]} = {expression}" if rewrite.outputs == 1 else expression
    title = t("Replace the asm block with `{code}`", code=text)
    return Fix(title, (Edit(block.start, block.end, text),), Applicability.UNSAFE)


def _snippet(template: str, limit: int = 48) -> str:
    flat = " ".join(template.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
