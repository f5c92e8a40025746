"""One file under review for one target: its text and tree, the words that name the target, the tests of whether
code names it, and how a reviewed finding is left as it is."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from tree_sitter import Node

from ...i18n import t
from ...model.findings import Difficulty, Finding
from .portedknowledge import PortedKnowledge, words_of
from .strings import string_value

_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_STRING = re.compile(rb"[rbfuRBFU]*(?:\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*')")
COLLECTIONS = frozenset({"list", "tuple", "set"})


class ReviewedFile:
    """The file, the target and how its messages name it."""

    def __init__(
        self, know: PortedKnowledge, data: bytes, root: Node, target: str, platform: str, path: Path | None = None
    ) -> None:
        self.path = path  # the file, for the names of its siblings (None: an unsaved buffer)
        self.know = know
        self.data = data
        self.root = root
        self.target = target
        self.words = know.words.get(target, frozenset())
        self.target_devices = frozenset(w.decode() for w in self.words)
        self.label = know.labels.get(target, target)  # the device type: "npu"
        self.platform = platform  # how people call it: "Ascend NPU"

    def names(self, node: Node | None) -> bool:
        """The code of `node` names the target, in any words."""
        if node is None or not self.words:
            return False
        return bool(words_of(self.data[node.start_byte : node.end_byte]) & self.words)

    def names_strongly(self, node: Node | None) -> bool:
        """Names the target in a way `fix` never writes: inside an identifier of the user's (`is_npu_available`,
        `torch_npu`, `USE_NPU`), not as the device string or the `torch.npu` module a rewrite produces. Code
        after our own rewrite must not look dual-stack to the next check."""
        if node is None or not self.words:
            return False
        for identifier in self.identifiers(node):
            if identifier.lower() not in self.words and words_of(identifier) & self.words:
                return True
        return False

    def identifiers(self, node: Node) -> list[bytes]:
        """The identifiers written in `node`'s code, strings left out."""
        code = _STRING.sub(b"", self.data[node.start_byte : node.end_byte])
        return _IDENTIFIER.findall(code)

    def other_accelerators(self, devices: Iterable[str]) -> list[str]:
        """The device types among `devices` that are accelerators other than CUDA (not cpu or meta), sorted."""
        known = self.know.device_types
        return sorted({d for d in devices if d in known and d != "cuda" and d not in self.know.generic_devices})


def device_type_of(node: Node) -> str:
    """The device type a string names (`"cuda:0"`: cuda); "" for anything else."""
    return key_type(string_value(node)) if node.type == "string" else ""


def key_type(key: str) -> str:
    return key.split(":", 1)[0].lower()


def leave(finding: Finding, difficulty: Difficulty, why: str) -> None:
    """The finding stays, without a fix, at `difficulty`, saying why."""
    finding.fix = None
    finding.replacement = None
    finding.difficulty = difficulty
    finding.message = t("`{name}` is left as it is: {why}", name=finding.symbol, why=why)
    finding.data = {**finding.data, "reviewed": "left"}
