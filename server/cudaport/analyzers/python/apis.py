"""Findings at the uses of PyTorch's CUDA API and of CUDA-only libraries, however they are imported (`torch.cuda.
synchronize()`, `tc.synchronize()` after `import torch.cuda as tc`, `@cuda.jit`), with the edits that rewrite a
chain; and the device-specific option values of a call (`torch.compile(m, mode="reduce-overhead")`)."""

from __future__ import annotations

from collections.abc import Callable

from ...knowledge.python import ApiEntry, PythonKnowledge
from ...knowledge.ruleset import Symbol, TargetMapping
from ...model.findings import Edit
from ..common.syntax import text
from . import strings
from .chains import Link, decorates, is_called
from .filestate import FileState
from .findingbuilder import FindingBuilder

# Whether a use of a library before an offset, outside a ranged analysis's windows, took its one finding.
LibraryUsedBefore = Callable[[FileState, ApiEntry, int], bool]


class ApiFindings:
    """The findings of dotted chains that resolve to known APIs."""

    def __init__(self, know: PythonKnowledge, builder: FindingBuilder, library_used_before: LibraryUsedBefore) -> None:
        self.know = know
        self.builder = builder
        self.library_used_before = library_used_before

    def options(self, file: FileState, links: list[Link]) -> bool:
        """Device-specific option values of a call (`torch.compile(m, mode="reduce-overhead")`)."""
        if links[-1].name not in self.know.option_words:
            return False
        qualified = file.imports.resolve([link.name for link in links])
        name = ".".join(qualified) if qualified is not None else ""
        if name not in self.know.option_calls:
            return False
        call = links[-1].prefix.parent
        arguments = call.child_by_field_name("arguments") if call is not None and call.type == "call" else None
        for argument in arguments.named_children if arguments is not None else []:
            keyword = argument.child_by_field_name("name") if argument.type == "keyword_argument" else None
            value = argument.child_by_field_name("value") if keyword is not None else None
            if keyword is None or value is None or value.type != "string":
                continue
            written = strings.literal(file.data, value)
            entry = self.know.options.get((name, text(keyword), written.content)) if written is not None else None
            if entry is None:
                continue
            label = f'`{entry.keyword}="{entry.value}"` of `{entry.call}`'
            targets = {
                t: TargetMapping(label if c.replacement == "=" else "", c.difficulty, c.note)
                for t, c in entry.counterparts.items()
            }
            symbol = Symbol(label, "option", entry.rule, "torch", targets)
            file.add(self.builder.finding(file, symbol, value, None, {"kind": "option"}, needs_module=False))
        return False  # the call itself may still be a finding

    def api(self, file: FileState, links: list[Link]) -> bool:
        """A finding for a chain that resolves to a known API; True when the chain was one (even if not reported)."""
        parts = [link.name for link in links]
        qualified = file.imports.resolve(parts)
        if qualified is None:
            return False
        base = len(qualified) - len(parts) + 1  # qualified components the base identifier stands for
        match = self.know.match(qualified)
        if match is not None:
            entry, size = match
            if self._api_use(file, links, qualified, base, entry, size):
                return True
        if file.target in self.know.unsupported_targets:
            size = self.know.is_unsupported(qualified)
            if size >= base:
                link = links[size - base]
                if is_called(link.prefix):
                    file.add(self.builder.unsupported(".".join(qualified[:size]), link.prefix, file.target))
                return True
        return match is not None

    def _api_use(
        self, file: FileState, links: list[Link], qualified: list[str], base: int, entry: ApiEntry, size: int
    ) -> bool:
        """Report a use of `entry` (it covers `size` qualified components; the chain's base stands for `base`)."""
        if entry.report == "import" and decorates(links[-1].prefix):
            # `@cuda.jit`, `@triton.jit`: every kernel the library compiles is a finding of its own
            symbol = entry.symbol(".".join(qualified[: max(size, 1)]), file.target)
            file.add(self.builder.finding(file, symbol, links[-1].prefix, None, {"kind": "api"}))
            file.reported_imports.add(entry.name)  # the library is reported: its other uses are not
            return True
        if size < base or (size == base and entry.report != "use"):
            return True  # the chain only repeats what its import says, and the import is reported
        if entry.report == "import":
            first = links[0].identifier.start_byte
            if entry.name in file.reported_imports or self.library_used_before(file, entry, first):
                file.reported_imports.add(entry.name)
                return True  # a library is one finding per file, at its import (or its first use)
            file.reported_imports.add(entry.name)
        node = links[size - base].prefix
        if entry.when == "cuda-sources":
            call = node.parent
            if call is None or call.type != "call" or call.child_by_field_name("function") != node:
                return False
            if not strings.passes_cuda_sources(call):
                return False
        name = ".".join(qualified[:size])
        symbol = entry.symbol(name, file.target)
        edits = self._use_edits(file, links, qualified, base, entry, size)
        finding = self.builder.finding(file, symbol, node, edits, {"kind": "api"})
        file.add(finding)
        if base > 1:
            file.alias_uses.setdefault(links[0].name, []).append(finding)
        return True

    def _use_edits(
        self, file: FileState, links: list[Link], qualified: list[str], base: int, entry: ApiEntry, size: int
    ) -> list[Edit] | None:
        name = ".".join(qualified[:size])
        rendered = entry.render(name, file.target)
        if rendered is None or rendered == name:
            return None
        old = qualified[:size]
        new = rendered.split(".")
        alias_prefix = qualified[:base]
        edits: list[Edit] = []
        if len(new) == size and new[:base] == alias_prefix:
            for index in range(base, size):
                if new[index] != old[index]:
                    identifier = links[index - base + 1].identifier
                    edits.append(Edit(identifier.start_byte, identifier.end_byte, new[index]))
            return edits
        alias = file.alias_edits.get(links[0].name) if base > 1 else None
        if len(new) == size and alias is not None and list(alias.qualified) == new[:base]:
            # the alias's import is rewritten (`import torch.cuda as tc` -> `import torch.npu as tc`)
            edits.extend(alias.edits)
            for index in range(base, size):
                if new[index] != old[index]:
                    identifier = links[index - base + 1].identifier
                    edits.append(Edit(identifier.start_byte, identifier.end_byte, new[index]))
            return edits
        # another module path: the chain is written anew from a name this file binds to the new root
        root = links[0].name if base == 1 and new[0] == qualified[0] else self._root_name(file, new[0])
        if root is None:
            return None
        node = links[size - base].prefix
        return [Edit(node.start_byte, node.end_byte, ".".join([root, *new[1:]]))]

    def _root_name(self, file: FileState, root: str) -> str | None:
        """How this file can spell the top-level module `root`: a local name bound to it, or the target's package
        (which the fix imports)."""
        local = file.imports.local_name([root])
        if local is not None:
            return local
        facts = self.know.targets.get(file.target)
        if facts is not None and root == facts.module and self.builder.insertion(file) is not None:
            return root
        return None
