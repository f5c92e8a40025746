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

The words and patterns are data: `[target.*] ported-words` and `[cuda-only]` in `rules/python.toml`
(portedknowledge). The Reviewer composes the passes, each in its own module: dual-stack code (alreadyported) with
the sides of device abstractions (abstractions), twins of statements (twins), tables of devices without the target
(devicetables), probes of CUDA-only paths (cudaonly), optional imports (optionalimports) and one device per line
(onedevice), all over one file under review (reviewedfile).
"""

from __future__ import annotations

from pathlib import Path

from tree_sitter import Node

from ...model.findings import Difficulty, Finding
from .abstractions import DeviceAbstractions
from .alreadyported import AlreadyPorted
from .cudaonly import cuda_only_probe
from .devicetables import table_without_target
from .onedevice import keep_one_device_per_line
from .optionalimports import review_optional_import
from .portedknowledge import PortedKnowledge
from .reviewedfile import ReviewedFile, leave
from .twins import statement_twins, twin_of


class Reviewer:
    """Reviews one file's findings for one target."""

    def __init__(
        self, know: PortedKnowledge, data: bytes, root: Node, target: str, platform: str, path: Path | None = None
    ) -> None:
        self.file = ReviewedFile(know, data, root, target, platform, path)
        self.abstractions = DeviceAbstractions(self.file)
        self.already_ported = AlreadyPorted(self.file, self.abstractions)

    def review(self, findings: list[Finding]) -> None:
        file = self.file
        # before any finding is left alone: a statement's fixes are judged together
        twins = statement_twins(file, findings)
        for finding in findings:
            node = file.root.descendant_for_byte_range(finding.start, finding.end)
            if node is None:
                continue
            if finding.data.get("kind") == "import":
                review_optional_import(finding, node)
            if finding.difficulty == Difficulty.PORTABLE:
                continue
            where = self.already_ported.around(node) or twin_of(node, twins)
            if where is not None:
                leave(finding, Difficulty.PORTABLE, where)
                continue
            table = table_without_target(file, node) or self.abstractions.missing_side(node)
            if table is not None:
                leave(finding, Difficulty.MANUAL, table)
                continue
            probe = cuda_only_probe(file, finding, node)
            if probe is not None:
                leave(finding, Difficulty.MANUAL, probe)
        keep_one_device_per_line(file.data, findings)
