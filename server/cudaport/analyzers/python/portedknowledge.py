"""What the review of code already written for the target knows, read from the rule data (`[target.*]
ported-words` and `[cuda-only]` in `rules/python.toml`): the words naming each target, the CUDA availability
probes, the patterns of CUDA-only paths; and how code is split into the words that name a device."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...model.records import record

_WORD = re.compile(rb"[A-Za-z0-9]+")
_CAMEL = re.compile(rb"(?<=[a-z0-9])(?=[A-Z])")
_CAPITALS = re.compile(rb"[A-Z]{2,}(?=[A-Z][a-z]|[^A-Za-z]|$)")


@record(frozen=True, slots=True)
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
