"""Findings at calls of PyTorch APIs whose operators the target's device plugin has no kernel for (CP7100, the data
in rules/operators/): `torch.lcm(a, b)`, `F.X(...)` after `import torch.nn.functional as F`, `nn.X(...)`, and a
tensor method where the receiver is known to be a tensor (`torch.arange(n).lcm(m)`, or a name the scope binds only
to tensors). A call on tensors provably on the CPU is a hint; a receiver not known to be a tensor, nothing."""

from __future__ import annotations

from enum import Enum

from tree_sitter import Node

from ...i18n import t
from ...knowledge.operators import Gap, OperatorCoverage, TensorFacts
from ...knowledge.ruleset import RuleSet, require_rules
from ...model.findings import Difficulty, Finding, FindingData
from ...model.records import record
from ..common.syntax import text
from . import strings
from .chains import chain_of, is_called
from .filestate import FileState

RULE = "CP7100"
require_rules(RULE)

_SCOPES = frozenset({"function_definition", "lambda", "class_definition", "module"})
_PARAMETERS = frozenset({"typed_parameter", "typed_default_parameter"})


class Place(Enum):
    """Where a tensor is, as far as the code shows."""

    CPU = "cpu"
    DEVICE = "device"  # on a device, or nobody can tell: to be safe, as if on one


@record(frozen=True, slots=True)
class _Call:
    api: str
    node: Node  # what the finding spans: the chain (or the method's name) that is called
    arguments: list[Node]


class OperatorFindings:
    """The operator-coverage findings of one analyzer's rule data."""

    def __init__(self, ruleset: RuleSet) -> None:
        self.ruleset = ruleset
        data = ruleset.operators
        self.tensors: TensorFacts = data.tensors if data is not None else TensorFacts()
        self._coverages: dict[str, OperatorCoverage | None] = {}

    def coverage(self, target: str) -> OperatorCoverage | None:
        """The target's coverage at the release the user builds with (None: no operator data for it)."""
        if target not in self._coverages:
            data = self.ruleset.operators
            found = data.coverage(target, self.ruleset.version_of(target)) if data is not None else None
            self._coverages[target] = found if found is not None and found.gaps else None
        return self._coverages[target]

    def words(self, target: str) -> frozenset[bytes]:
        coverage = self.coverage(target)
        return coverage.words if coverage is not None else frozenset()

    def identifier(self, file: FileState, node: Node) -> None:
        """A word that names an API the plugin lacks, where it stands: a finding when it is such a call."""
        coverage = self.coverage(file.target)
        if coverage is None:
            return
        call = self._function_call(file, node) or self._method_call(file, node, coverage)
        if call is None:
            return
        gap = coverage.gap(call.api)
        if gap is None:
            return
        on_cpu = bool(call.arguments) and all(self._place(file, a) is Place.CPU for a in call.arguments[:1])
        file.add(self._finding(file, gap, call.node, coverage, on_cpu))

    # ---- what is called ---------------------------------------------------------------------------------------
    def _function_call(self, file: FileState, node: Node) -> _Call | None:
        """`torch.lcm(...)`, `F.x(...)`, `nn.X(...)`, `torch.Tensor.lcm(t, ...)`: a dotted chain of imports."""
        chain = node.parent if _is_attribute_name(node) else node
        if chain is None or (chain.parent is not None and _object_of(chain.parent) == chain):
            return None  # `torch.lcm.__doc__`: the chain goes on
        links = chain_of(chain)
        if links is None or not is_called(chain):
            return None
        qualified = file.imports.resolve([link.name for link in links])
        if qualified is None:
            return None
        api = ".".join(qualified)
        if api.startswith("torch.Tensor."):
            api = api[len("torch.") :]
        return _Call(api, chain, _arguments(chain))

    def _method_call(self, file: FileState, node: Node, coverage: OperatorCoverage) -> _Call | None:
        """`<tensor>.lcm(...)`: a method whose receiver is known to be a tensor."""
        if not _is_attribute_name(node):
            return None
        attribute = node.parent
        assert attribute is not None
        if not is_called(attribute) or coverage.gap(f"Tensor.{text(node)}") is None:
            return None
        receiver = attribute.child_by_field_name("object")
        if receiver is None:
            return None
        links = chain_of(receiver) if receiver.type in ("identifier", "attribute") else None
        if links is not None and file.imports.resolve([link.name for link in links]) is not None:
            return None  # a module's function (`np.lcm`), which the chain pass has looked at
        place = self._place(file, receiver)
        if place is None:
            return None
        return _Call(f"Tensor.{text(node)}", node, [receiver])

    # ---- where a tensor is ------------------------------------------------------------------------------------
    def _place(self, file: FileState, node: Node, depth: int = 0) -> Place | None:
        """Where the value of `node` is, when it is known to be a tensor; None when it is not known to be one."""
        if depth > 8:
            return None
        if node.type == "parenthesized_expression" and node.named_child_count == 1:
            inner = node.named_children[0]
            return self._place(file, inner, depth + 1)
        if node.type == "call":
            return self._call_place(file, node, depth)
        if node.type == "identifier":
            return self._name_place(file, node, depth)
        return None

    def _call_place(self, file: FileState, call: Node, depth: int) -> Place | None:
        function = call.child_by_field_name("function")
        if function is None:
            return None
        facts = self.tensors
        links = chain_of(function) if function.type in ("identifier", "attribute") else None
        qualified = file.imports.resolve([link.name for link in links]) if links is not None else None
        if qualified is not None:
            name = ".".join(qualified)
            if name in facts.factories:
                return _device_argument(file, call) or Place.CPU
            if name in facts.like or name in facts.combine:
                first = _arguments(function)[:1]
                return (
                    _device_argument(file, call)
                    or (self._place(file, first[0], depth + 1) if first else None)
                    or Place.DEVICE
                )
            return None
        if function.type != "attribute":
            return None
        method = function.child_by_field_name("attribute")
        receiver = function.child_by_field_name("object")
        if method is None or receiver is None:
            return None
        name = text(method)
        if name not in facts.methods and name not in facts.to_device and name not in facts.to_cpu:
            return None
        below = self._place(file, receiver, depth + 1)
        if below is None:
            return None
        if name in facts.to_cpu:
            return Place.CPU
        if name in facts.to_device:
            return _device_argument(file, call, positional=True) or Place.DEVICE if name == "to" else Place.DEVICE
        return below

    def _name_place(self, file: FileState, name: Node, depth: int) -> Place | None:
        """A name the enclosing scope binds only to tensors (assignments before the use, or an annotated
        parameter); None when any binding of it is something else."""
        scope = _scope(name)
        if scope is None:
            return None
        spelled = text(name)
        places: list[Place] = []
        for binding in _bindings(scope, spelled):
            if binding.type in _PARAMETERS:
                annotation = binding.child_by_field_name("type")
                written = (
                    annotation.text.decode("utf-8", "replace") if annotation is not None and annotation.text else ""
                )
                qualified = file.imports.resolve(written.split(".")) if written else None
                if qualified is None or ".".join(qualified) not in self.tensors.annotations:
                    return None
                places.append(Place.DEVICE)
            elif binding.type == "assignment":
                value = binding.child_by_field_name("right")
                place = self._place(file, value, depth + 1) if value is not None else None
                if place is None:
                    return None
                places.append(place)
            else:
                return None
        if not places:
            return None
        return Place.CPU if all(p is Place.CPU for p in places) else Place.DEVICE

    # ---- the finding ------------------------------------------------------------------------------------------
    def _finding(self, file: FileState, gap: Gap, node: Node, coverage: OperatorCoverage, on_cpu: bool) -> Finding:
        plugin = coverage.plugin
        assert plugin is not None
        target = self.ruleset.targets.get(file.target)
        device = t(target.label) if target is not None else file.target
        fields = {
            "api": gap.api,
            "device": device,
            "package": plugin.package,
            "release": plugin.release,
            "operators": ", ".join(f"aten::{op}" for op in gap.operators),
        }
        if on_cpu:
            message = t(
                "`{api}` runs on the CPU here (its tensor is on the CPU); {package} {release} has no {device} kernel "
                "for {operators}, should it move to the device",
                **fields,
            )
        elif plugin.missing == "cpu-fallback":
            message = t(
                "`{api}`: no {device} kernel in {package} {release} ({operators}); it falls back to the CPU, slowly "
                "and with a warning ({strict} makes it fail)",
                strict=plugin.strict,
                **fields,
            )
        else:
            message = t(
                "`{api}`: no {device} kernel in {package} {release} ({operators}); the call fails "
                "(NotImplementedError)",
                **fields,
            )
        if gap.unlisted:
            message += t("; {package}'s API support list marks it unsupported too", package=plugin.package)
        if gap.limited:
            message += t("; {package}'s API support list notes a limitation of it", package=plugin.package)
        rule = self.ruleset.rules[RULE]
        difficulty = Difficulty.PORTABLE if on_cpu else rule.unmapped.get(file.target, Difficulty.MANUAL)
        data = FindingData(
            kind="operator", operators=",".join(gap.operators), plugin=f"{plugin.package} {plugin.release}"
        )
        return Finding(RULE, node.start_byte, node.end_byte, difficulty, message, gap.api, data=data)


def _is_attribute_name(node: Node) -> bool:
    parent = node.parent
    return parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == node


def _object_of(node: Node) -> Node | None:
    return node.child_by_field_name("object") if node.type == "attribute" else None


def _arguments(function: Node) -> list[Node]:
    """The positional arguments of the call `function` is the callee of."""
    call = function.parent
    arguments = call.child_by_field_name("arguments") if call is not None and call.type == "call" else None
    if arguments is None:
        return []
    return [a for a in arguments.named_children if a.type not in ("keyword_argument", "comment")]


def _device_argument(file: FileState, call: Node, positional: bool = False) -> Place | None:
    """The place a call's `device=` argument (or, for `.to(...)`, its first argument) names, if it names one."""
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return None
    for argument in arguments.named_children:
        value: Node | None = None
        if argument.type == "keyword_argument":
            keyword = argument.child_by_field_name("name")
            if keyword is not None and text(keyword) == "device":
                value = argument.child_by_field_name("value")
        elif positional:
            value = argument
            positional = False
        if value is None:
            continue
        return Place.CPU if _names_cpu(file, value) else Place.DEVICE
    return None


def _names_cpu(file: FileState, value: Node) -> bool:
    """`"cpu"`, `"cpu:0"` or `torch.device("cpu")`."""
    if value.type == "string":
        written = strings.literal(file.data, value)
        return written is not None and written.content.split(":")[0] == "cpu"
    if value.type == "call":
        function = value.child_by_field_name("function")
        links = chain_of(function) if function is not None and function.type in ("identifier", "attribute") else None
        qualified = file.imports.resolve([link.name for link in links]) if links is not None else None
        if qualified == ["torch", "device"]:
            first = _arguments(function)[:1] if function is not None else []
            return bool(first) and _names_cpu(file, first[0])
    return False


def _scope(node: Node) -> Node | None:
    current = node.parent
    while current is not None and current.type not in _SCOPES:
        current = current.parent
    return current


def _bindings(scope: Node, name: str) -> list[Node]:
    """Every place `scope` binds `name`, before or after the use (a loop may bring a later one round): plain
    assignments to it, its parameter, and anything else that binds it (returned as the node doing so, for the
    caller to reject). Nested functions and classes have scopes of their own; a comprehension's name counts
    against it (to be safe)."""
    found: list[Node] = []
    stack = list(scope.named_children)
    if scope.type == "function_definition":
        parameters = scope.child_by_field_name("parameters")
        for parameter in parameters.named_children if parameters is not None else []:
            if _parameter_name(parameter) == name:
                found.append(parameter)
        body = scope.child_by_field_name("body")
        stack = list(body.named_children) if body is not None else []
    while stack:
        node = stack.pop()
        if node.type in ("function_definition", "class_definition"):
            named = node.child_by_field_name("name")
            if named is not None and text(named) == name:
                found.append(node)
            continue
        if node.type == "lambda":
            continue
        if node.type == "assignment":
            left = node.child_by_field_name("left")
            if left is not None and left.type == "identifier" and text(left) == name:
                found.append(node)
            elif left is not None and _names(left, name):
                found.append(left)
        else:
            target = _BINDING_FIELDS.get(node.type)
            bound = node.child_by_field_name(target) if target else node if node.type in _BINDING_WHOLE else None
            if bound is not None and _names(bound, name):
                found.append(node)
        stack.extend(node.named_children)
    return found


# Constructs that bind names, and the part of each that names them.
_BINDING_FIELDS = {
    "augmented_assignment": "left",
    "for_statement": "left",
    "for_in_clause": "left",
    "named_expression": "name",
    "as_pattern": "alias",
}
_BINDING_WHOLE = frozenset({"global_statement", "nonlocal_statement", "import_statement", "import_from_statement"})


def _parameter_name(parameter: Node) -> str:
    if parameter.type == "identifier":
        return text(parameter)
    first = parameter.named_children[0] if parameter.named_child_count else None
    if first is not None and first.type == "identifier":
        return text(first)
    named = parameter.child_by_field_name("name")
    return text(named) if named is not None else ""


def _names(node: Node, name: str) -> bool:
    """Whether an identifier `name` is written in `node` (a binding target)."""
    if node.type == "identifier":
        return text(node) == name
    return any(_names(child, name) for child in node.named_children)
