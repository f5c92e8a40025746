"""Findings at methods and attributes of CUDA's on any object (`x.cuda()`, `x.is_cuda`) and at tensor methods the
target does not support; one the file defines itself is the program's own, not CUDA's."""

from __future__ import annotations

from tree_sitter import Node

from ...i18n import t
from ...knowledge.python import PythonKnowledge
from ...knowledge.ruleset import Symbol, TargetMapping
from ...model.findings import Difficulty, Edit, Finding
from ..common.names import Affected, Role
from ..common.syntax import text
from .filestate import FileState
from .findingbuilder import FindingBuilder
from .names import PythonNames

_NAMES = PythonNames()


class MethodFindings:
    """The findings of `.name` attributes the rule data knows as CUDA's methods."""

    def __init__(self, know: PythonKnowledge, builder: FindingBuilder) -> None:
        self.know = know
        self.builder = builder

    def method(self, file: FileState, node: Node, attribute: Node) -> None:
        """The attribute `node` of `attribute`: CUDA's method or attribute (`x.cuda()`, `x.is_cuda`), one the file
        defines itself, or a tensor method the target does not support."""
        name = text(node)
        call = attribute.parent
        called = call is not None and call.type == "call" and call.child_by_field_name("function") == attribute
        method = self.know.methods.get(name)
        if method is not None and method.called == called:
            defined = _own_attribute(file, name)
            if defined is not None and _on_self(attribute):
                return  # the program's own attribute or method, on its own object: none of CUDA's
            counterpart = method.counterparts.get(file.target)
            if defined is not None and counterpart is not None and counterpart.replacement not in ("", "=", name):
                self._own_method(file, node, name, defined)
                return
            counterpart = method.counterparts.get(file.target)
            suffix = "()" if called else ""
            targets = {
                t: TargetMapping(
                    f".{c.replacement if c.replacement != '=' else name}{suffix}" if c.replacement else "",
                    c.difficulty,
                    c.note,
                )
                for t, c in method.counterparts.items()
            }
            symbol = Symbol(f".{name}{suffix}", "method", method.rule, "torch", targets)
            edits = None
            if counterpart is not None and counterpart.replacement and counterpart.replacement not in ("=", name):
                edits = [Edit(node.start_byte, node.end_byte, counterpart.replacement)]
            file.add(self.builder.finding(file, symbol, node, edits, {"kind": "method"}))
            return
        if file.target in self.know.unsupported_targets and called and name in self.know.unsupported_methods:
            file.add(self.builder.unsupported(f"Tensor.{name}", node, file.target))

    def _own_method(self, file: FileState, node: Node, name: str, defined: int) -> None:
        """`.cuda()` on an object where the file defines an attribute or method of that name itself: it may be the
        program's or a tensor's, so a person tells (a rewrite would have to follow every read and write of the
        program's own)."""
        line = file.data.count(b"\n", 0, defined) + 1
        suffix = "()" if self.know.methods[name].called else ""
        symbol = Symbol(f".{name}{suffix}", "method", self.know.methods[name].rule, "torch", {})
        message = t(
            "`.{name}` is also a method or attribute this file defines (line {line}): if this one is a tensor's or "
            "a module's, change it by hand; a rewrite would rename the program's own too",
            name=name,
            line=line,
        )
        file.add(
            Finding(
                symbol.rule,
                node.start_byte,
                node.end_byte,
                Difficulty.MANUAL,
                message,
                symbol.name,
                data={"kind": "method"},
            )
        )


def _on_self(attribute: Node) -> bool:
    receiver = attribute.child_by_field_name("object")
    return receiver is not None and receiver.type == "identifier" and text(receiver) in ("self", "cls")


def _own_attribute(file: FileState, name: str) -> int | None:
    """Where the file defines an attribute or method `name` itself (`self.name = ...`, `obj.name = ...`, a `def` or
    an assignment in a class body), worked out once per name and file; None: it only reads one."""
    known = file.own_attributes.get(name)
    if known is None:
        affected = Affected(frozenset({name}), frozenset())
        definitions = [
            o.start
            for o in _NAMES.occurrences(file.data, file.root, affected)
            if o.namespace in ("attr", "member") and o.role & Role.DEFINES
        ]
        known = file.own_attributes[name] = min(definitions) if definitions else -1
    return known if known >= 0 else None
