"""Dual-stack fixes for Python (`fix --style dual-stack`): device strings, the "nccl" backend and torch.cuda calls
become device-neutral, so the same script runs on CUDA and ROCm (PyTorch's "cuda" device), Ascend NPUs and
Cambricon MLUs.

Each finding whose rename is safe gets a neutral form instead:
- `"cuda"` -> `cudaport_device.get_device()`, `"cuda:1"` -> `f"{cudaport_device.get_device()}:1"`, `f"cuda:{rank}"`
  -> `f"{cudaport_device.get_device()}:{rank}"`;
- `"nccl"` -> `cudaport_device.dist_backend()`;
- `torch.cuda.synchronize()` -> `torch.accelerator.synchronize()` where the project's PyTorch has it
  (rules/python.toml `[dual-stack]`), any other `torch.cuda.X` -> `torch.get_device_module().X` there; with an
  older PyTorch `cudaport_device.device_module().X`, or the helper's own `is_available()`/`device_count()`
  (they count accelerators, which the CPU's module would not say);
- `x.cuda()` -> `x.to(cudaport_device.get_device())`.
Only where the target's own name is the same API in the target's module (`torch.npu.X` for `torch.cuda.X`); a
member the target renames or lacks stays a finding. Every such fix of a file carries the same lines after its
`import torch`: the target's package imported under `try` (a CUDA machine has none) and the helper module.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tree_sitter import Node

from ...i18n import t
from ...knowledge.python import TargetFacts
from ...model.findings import CompatEntry, Edit, Finding, Fix
from ...model.records import record
from ..common.base import DualStackPlan
from . import strings
from .imports import Imports

_DEVICE = re.compile(r"^cuda(?::(\d+))?$")
_TORCH_CUDA = "torch.cuda."


@record(frozen=True, slots=True)
class DualTable:
    """rules/python.toml `[dual-stack]`: torch.cuda functions and their torch.accelerator forms."""

    accelerator: Mapping[str, str]
    helper: Mapping[str, str]  # torch.cuda functions the helper module has a function of its own for

    @classmethod
    def load(cls, table: Mapping[str, Any]) -> DualTable:
        section = table.get("dual-stack", {}) if isinstance(table, Mapping) else {}
        return cls(
            {str(k): str(v) for k, v in section.get("accelerator", {}).items()},
            {str(k): str(v) for k, v in section.get("helper", {}).items()},
        )


def add_dual_fixes(
    findings: list[Finding],
    data: bytes,
    root: Node,
    imports: Imports,
    plan: DualStackPlan | None,
    facts: TargetFacts | None,
    table: DualTable,
    comment_imports: bool,
) -> None:
    """Give each finding that has a device-neutral form its dual-stack fix (in place)."""
    if plan is None or not plan.helper or facts is None or facts.keeps_cuda:
        return
    helper = plan.helper.lstrip(".")
    neutral: list[tuple[Finding, tuple[Edit, ...], tuple[str, ...]]] = []
    for finding in findings:
        fix = finding.fix
        if fix is None or not fix.is_safe:
            continue
        form = _neutral_form(finding, data, root, helper, plan, facts, table)
        if form is not None:
            neutral.append((finding, *form))
    if not neutral:
        return
    uses_helper = any(functions for _, _, functions in neutral)
    block = _import_block(imports, plan, facts, uses_helper, comment_imports)
    if block is None:
        return  # no line of its own to import on: the rename is the only fix
    for finding, edits, functions in neutral:
        compat = tuple(CompatEntry("python", plan.helper, name) for name in functions)
        title = t("Make `{name}` device-neutral (dual-stack)", name=finding.symbol)
        finding.dual = Fix(title, (*edits, block), compat=compat)


def _neutral_form(
    finding: Finding,
    data: bytes,
    root: Node,
    helper: str,
    plan: DualStackPlan,
    facts: TargetFacts,
    table: DualTable,
) -> tuple[tuple[Edit, ...], tuple[str, ...]] | None:
    """The finding's neutral edits and the helper functions they call, or None."""
    kind = finding.data.get("kind")
    node = root.descendant_for_byte_range(finding.start, finding.end)
    if node is None:
        return None
    if kind in ("device_string", "backend"):
        if node.type != "string":
            node = node.parent if node.parent is not None and node.parent.type == "string" else node
        written = strings.literal(data, node) if node.type == "string" else None
        if written is None:
            return None
        if written.formatted:  # f"cuda:{rank}" -> f"{cudaport_device.get_device()}:{rank}"
            if kind != "device_string" or not re.match(r"cuda(?::|$)", written.content):
                return None
            start = written.content_start
            return (Edit(start, start + len("cuda"), f"{{{helper}.get_device()}}"),), ("get_device",)
        if kind == "backend":
            if written.content != "nccl":
                return None
            return (Edit(node.start_byte, node.end_byte, f"{helper}.dist_backend()"),), ("dist_backend",)
        device = _DEVICE.match(written.content)
        if device is None:
            return None
        call = f"{helper}.get_device()"
        new = call if device.group(1) is None else f'f"{{{call}}}:{device.group(1)}"'
        return (Edit(node.start_byte, node.end_byte, new),), ("get_device",)
    if kind == "api":
        symbol = finding.symbol
        written_name = "".join(data[finding.start : finding.end].decode("utf-8", "replace").split())
        if not symbol.startswith(_TORCH_CUDA) or written_name != symbol:
            return None  # another spelling (an alias, a `from` import) is left to the rename
        rest = symbol[len(_TORCH_CUDA) :]
        if finding.replacement != f"torch.{facts.device}.{rest}":
            return None  # the target renames the member or lacks it
        if plan.accelerator and symbol in table.accelerator:
            return (Edit(finding.start, finding.end, table.accelerator[symbol]),), ()
        if plan.accelerator:
            return (Edit(finding.start, finding.end, f"torch.get_device_module().{rest}"),), ()
        if symbol in table.helper:
            function = table.helper[symbol]
            return (Edit(finding.start, finding.end, f"{helper}.{function}"),), (function,)
        return (Edit(finding.start, finding.end, f"{helper}.device_module().{rest}"),), ("device_module",)
    if kind == "method" and finding.symbol == ".cuda()":
        attribute = node.parent
        called = attribute.parent if attribute is not None else None
        arguments = called.child_by_field_name("arguments") if called is not None else None
        if called is None or arguments is None or arguments.named_child_count:
            return None  # `x.cuda(1)`, `x.cuda(non_blocking=True)`: other arguments to carry over by hand
        return (Edit(node.start_byte, called.end_byte, f"to({helper}.get_device())"),), ("get_device",)
    return None


def _import_block(
    imports: Imports, plan: DualStackPlan, facts: TargetFacts, uses_helper: bool, comment_imports: bool
) -> Edit | None:
    lines: list[str] = []
    if facts.module:
        noqa = "  # noqa: F401" if comment_imports else ""
        lines += [
            "try:",
            f"    import {facts.module}{noqa}  # registers the device with PyTorch where it is installed",
            "except ImportError:  # a machine without it (CUDA, ROCm)",
            "    pass",
        ]
    if uses_helper:
        dots, module = plan.helper[: len(plan.helper) - len(plan.helper.lstrip("."))], plan.helper.lstrip(".")
        lines.append(f"from {dots} import {module}" if dots else f"import {module}")
    if not lines:
        return None
    return imports.insertion_lines(lines)
