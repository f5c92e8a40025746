"""The Python helper module of a dual-stack fix (`cudaport_device.py`): which device this process computes on,
its torch module and its torch.distributed backend, asked of PyTorch at run time instead of written as "cuda".

With a PyTorch that has torch.accelerator (the project's requirements need 2.6 or later) it asks that; otherwise it
tries each device module a vendor package registers (torch.cuda, torch.npu after `import torch_npu`, ...). The
device types and backends come from the rule data (rules/python.toml, each target's `device` and `backend`).
An existing module is extended with a function it lacks, never rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

FUNCTIONS = ("get_device", "device_module", "dist_backend", "is_available", "device_count")


def backends(python_table: Mapping[str, Any]) -> dict[str, str]:
    """Device type -> torch.distributed backend, CUDA's first (ROCm's PyTorch answers as "cuda" too)."""
    out: dict[str, str] = {}
    targets = python_table.get("target", {}) if isinstance(python_table, Mapping) else {}
    for facts in sorted(targets.values(), key=lambda f: f.get("device") != "cuda"):
        device, backend = str(facts.get("device", "")), str(facts.get("backend", ""))
        if device and backend:
            out.setdefault(device, backend)
    return out


def update(existing: str | None, needed: Iterable[str], table: Mapping[str, str], accelerator: bool) -> str | None:
    """The module's new text with the functions in `needed`, or None when it has them all."""
    bodies = _functions(table, accelerator)
    if existing is None:
        return _header(table, accelerator) + "".join(f"\n\n{bodies[name]}" for name in FUNCTIONS)
    missing = [name for name in FUNCTIONS if name in set(needed) and not _defines(existing, name)]
    if not missing:
        return None
    newline = "\r\n" if "\r\n" in existing else "\n"
    text = existing.rstrip() + "\n" + "".join(f"\n\n{bodies[name]}" for name in missing)
    return text.replace("\n", newline)


def _defines(text: str, name: str) -> bool:
    return re.search(rf"^def[ \t]+{name}\b", text, re.MULTILINE) is not None


def _header(table: Mapping[str, str], accelerator: bool) -> str:
    devices = ", ".join(f'"{device}": "{backend}"' for device, backend in table.items())
    how = (
        "It asks torch.accelerator (PyTorch 2.6 and later), which answers for whatever device package is imported."
        if accelerator
        else "It tries the device module each vendor package registers with PyTorch (import torch_npu for torch.npu)."
    )
    return "\n".join(
        [
            '"""Which device this process computes on, written by `cudaport fix --style dual-stack`.',
            "",
            "The code asks these functions instead of naming a device, so the same script runs on NVIDIA and AMD GPUs",
            '(PyTorch\'s "cuda" device), Ascend NPUs, Cambricon MLUs and Moore Threads GPUs, or on the CPU.',
            how,
            "Review it like your own code: cudaport only adds a function it needs and never changes the others.",
            '"""',
            "",
            "import types",
            "",
            "import torch",
            "",
            "# The torch.distributed backend of each device type.",
            f"BACKENDS = {{{devices}}}",
            "",
        ]
    )


def _functions(table: Mapping[str, str], accelerator: bool) -> dict[str, str]:
    if accelerator:
        get_device = "\n".join(
            [
                "def get_device() -> str:",
                '    """The type of this process\'s accelerator ("cuda", "npu", ...), or "cpu" without one."""',
                "    if torch.accelerator.is_available():",
                "        return torch.accelerator.current_accelerator().type",
                '    return "cpu"',
            ]
        )
        module = "    return torch.get_device_module(get_device())"
    else:
        get_device = "\n".join(
            [
                "def get_device() -> str:",
                '    """The type of this process\'s accelerator ("cuda", "npu", ...), or "cpu" without one."""',
                "    for name in BACKENDS:",
                "        device = getattr(torch, name, None)",
                "        if device is not None and device.is_available():",
                "            return name",
                '    return "cpu"',
            ]
        )
        module = "    return getattr(torch, get_device())"
    return {
        "get_device": get_device + "\n",
        "device_module": "\n".join(
            [
                "def device_module() -> types.ModuleType:",
                '    """The torch module of that device: torch.cuda, torch.npu, ... (torch.cpu without one)."""',
                module,
                "",
            ]
        ),
        "is_available": "\n".join(
            [
                "def is_available() -> bool:",
                '    """Whether this process has an accelerator (torch.cuda.is_available() on any of them)."""',
                '    return get_device() != "cpu"',
                "",
            ]
        ),
        "device_count": "\n".join(
            [
                "def device_count() -> int:",
                '    """How many accelerators this process sees (0 without one, as torch.cuda.device_count())."""',
                "    return device_module().device_count() if is_available() else 0",
                "",
            ]
        ),
        "dist_backend": "\n".join(
            [
                "def dist_backend() -> str:",
                '    """The torch.distributed backend for that device ("gloo" on the CPU)."""',
                '    return BACKENDS.get(get_device(), "gloo")',
                "",
            ]
        ),
    }
