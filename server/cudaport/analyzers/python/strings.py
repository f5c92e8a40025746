"""Python string literals that PyTorch reads as a device type, a distributed backend or an environment variable,
decided by where the string is (its position), never by its text alone."""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

from tree_sitter import Node

from ...model.records import record
from ..common.syntax import text

if TYPE_CHECKING:
    from ...knowledge.python import Positions
    from .imports import Imports

# "cuda", "cuda:0", f"cuda:{rank}", "cuda:%d" % rank, "cuda:{}".format(rank)
DEVICE = re.compile(r"^[a-z]+(?::(?:\d+|\{[^{}]*\}|%[dis]))?$")
_ASCENDING_IDS = re.compile(r"^\d+(?:,\d+)*$")
_CUDA_SOURCE = re.compile(r"\.cuh?$")
# Wrappers a value can sit in and still be the value of its position.
_TRANSPARENT = frozenset({"parenthesized_expression", "list", "tuple", "set", "boolean_operator", "expression_list"})
_COMPREHENSIONS = frozenset({"list_comprehension", "set_comprehension", "generator_expression"})
_ENVIRON = ["os", "environ"]
_ENV_FUNCTIONS = frozenset({"os.getenv", "os.putenv", "os.unsetenv", "os.environ.get", "os.environ.setdefault"})
_ENV_FUNCTIONS |= frozenset({"os.environ.pop", "os.environ.__getitem__", "os.environ.__setitem__"})
_ENV_METHODS = frozenset({"setenv", "delenv"})  # pytest's monkeypatch


@record(frozen=True, slots=True)
class Literal:
    content: str  # between the quotes, interpolations included as written
    content_start: int
    content_end: int
    formatted: bool  # an f-string


def literal(data: bytes, string: Node) -> Literal | None:
    """The content of a plain or f-string literal (not bytes, not a concatenation)."""
    first = string.child(0)
    last = string.child(string.child_count - 1)
    if first is None or last is None or first.type != "string_start" or last.type != "string_end":
        return None
    prefix = text(first).lower()
    if "b" in prefix:
        return None
    parent = string.parent
    if parent is not None and parent.type == "concatenated_string":
        return None
    content = data[first.end_byte : last.start_byte].decode("utf-8", "replace")
    return Literal(content, first.end_byte, last.start_byte, "f" in prefix)


# ---- positions ------------------------------------------------------------------------------------------------
def in_position(string: Node, positions: Positions, imports: Imports) -> bool:
    """Whether PyTorch reads this string where `positions` says it reads a device (or a backend)."""
    value = _climb(string)
    parent = value.parent
    if parent is None:
        return False
    kind = parent.type
    if kind == "keyword_argument" and parent.child_by_field_name("value") == value:
        name = text(parent.child_by_field_name("name") or parent)
        if name in positions.keywords:
            return True
        if name in ("default", "choices", "const"):
            return _argparse_option_names(parent.parent, positions)
        return False
    if kind == "argument_list":
        if _positional(value, parent, positions, imports):
            return True
        return positions.any_call and value.type == "string" and _plain_call(parent, positions)
    if kind == "assignment" and parent.child_by_field_name("right") == value:
        return _names(parent.child_by_field_name("left"), positions)
    if kind in ("default_parameter", "typed_default_parameter") and parent.child_by_field_name("value") == value:
        return _names(parent.child_by_field_name("name"), positions)
    if kind == "pair":
        if parent.child_by_field_name("value") == value and _names(parent.child_by_field_name("key"), positions):
            return True  # {"device": "cuda"}
        if parent.child_by_field_name("key") == value and is_device_table(parent.parent, positions):
            return True  # {"cuda": "nccl", "cpu": "gloo"}
        dictionary = parent.parent  # map_location={"cuda:1": "cuda:0"}: a dict in a device position
        return (
            dictionary is not None and dictionary.type == "dictionary" and in_position(dictionary, positions, imports)
        )
    if kind == "comparison_operator":
        return any(_names_value(operand, positions, imports) for operand in parent.named_children if operand != value)
    if kind == "return_statement":
        function = _enclosing(parent, "function_definition")
        return function is not None and _names(function.child_by_field_name("name"), positions)
    return False


def _climb(node: Node) -> Node:
    """From a string to the expression that carries it: through parentheses, collections, `x if c else y`,
    `"cuda:%d" % i` and `"cuda:{}".format(i)`."""
    current = node
    for _ in range(8):
        parent = current.parent
        if parent is None:
            break
        if _carries(parent, current):
            current = parent
        elif parent.type == "binary_operator" and parent.child_by_field_name("left") == current:
            operator = parent.child_by_field_name("operator")
            if operator is None or text(operator) != "%":
                break
            current = parent
        elif parent.type == "attribute" and parent.child_by_field_name("object") == current:
            call = parent.parent
            if text(parent.child_by_field_name("attribute") or parent) != "format" or call is None:
                break
            if call.type != "call":
                break
            current = call
        else:
            break
    return current


def _carries(parent: Node, child: Node) -> bool:
    """`parent` has the value of `child`: a collection holding it, a branch of `x if c else y`, a comprehension's
    element."""
    if parent.type in _TRANSPARENT:
        return True
    if parent.type == "conditional_expression":
        return parent.named_children.index(child) != 1  # not the condition
    return parent.type in _COMPREHENSIONS and parent.child_by_field_name("body") == child


def _positional(value: Node, arguments: Node, positions: Positions, imports: Imports) -> bool:
    call = arguments.parent
    function = call.child_by_field_name("function") if call is not None else None
    if function is None:
        return False
    index = 0
    for argument in arguments.named_children:
        if argument == value:
            break
        if argument.type not in ("keyword_argument", "comment"):
            index += 1
    qualified = _qualified(function, imports)
    if qualified is not None:
        if index == 0 and (qualified in positions.first_argument or qualified.startswith("torch.cuda.")):
            return True
        if index == 1 and qualified in positions.second_argument:
            return True
    if function.type == "attribute":
        method = text(function.child_by_field_name("attribute") or function)
        if index == 0 and (method in positions.methods or method in positions.functions):
            return True
    return function.type == "identifier" and index == 0 and text(function) in positions.functions


def _plain_call(arguments: Node, positions: Positions) -> bool:
    """A call that does not print, log, raise or handle text (for names like "nccl" taken in any position)."""
    call = arguments.parent
    function = call.child_by_field_name("function") if call is not None else None
    if function is None:
        return False
    name = text(function).rsplit(".", 1)[-1]
    return name not in positions.not_in and not name.endswith(("Error", "Exception", "Warning"))


def table_keys(dictionary: Node | None) -> list[str]:
    """The string keys of a dict display, as written (without quotes and prefixes)."""
    if dictionary is None or dictionary.type != "dictionary":
        return []
    keys = []
    for pair in dictionary.named_children:
        key = pair.child_by_field_name("key") if pair.type == "pair" else None
        if key is not None and key.type == "string":
            keys.append(string_value(key))
    return keys


def string_value(string: Node) -> str:
    """The text between the quotes of a string literal (interpolations as written)."""
    return "".join(text(c) for c in string.named_children if c.type in ("string_content", "interpolation"))


def is_device_table(dictionary: Node | None, positions: Positions) -> bool:
    """A dict keyed by device types: at least two of its keys name devices (`{"cuda": ..., "xpu": ...}`)."""
    keys = table_keys(dictionary)
    return len(keys) >= 2 and sum(key.split(":")[0] in positions.tables for key in keys) >= 2


def _names(node: Node | None, positions: Positions) -> bool:
    """A variable, attribute, parameter, subscript key or string key named like a device (or backend)."""
    if node is None:
        return False
    if node.type == "attribute":
        node = node.child_by_field_name("attribute")
    elif node.type == "subscript":
        node = node.child_by_field_name("subscript")
    elif node.type in ("pattern_list", "tuple_pattern"):
        return False
    if node is None:
        return False
    if node.type == "string":
        return positions.names_value(text(node).strip("\"'"))
    return node.type == "identifier" and positions.names_value(text(node))


def _names_value(operand: Node, positions: Positions, imports: Imports) -> bool:
    """The other side of a comparison holds a device (backend): `x.device.type`, `args.device`, `str(device)`,
    `dist.get_backend()`."""
    if operand.type == "attribute":
        attribute = operand.child_by_field_name("attribute")
        if attribute is not None and text(attribute) == "type":
            return True  # `x.type == "cuda"`: PyTorch's device type, whatever the object is called
        return _names(operand, positions)
    if operand.type in ("identifier", "subscript"):
        return _names(operand, positions)
    if operand.type == "call":
        function = operand.child_by_field_name("function")
        arguments = operand.child_by_field_name("arguments")
        if function is None:
            return False
        qualified = _qualified(function, imports)
        if qualified is not None and qualified in positions.returns:
            return True
        if function.type == "attribute":
            attribute = function.child_by_field_name("attribute")
            if (
                attribute is not None
                and qualified is None
                and any(qualified_name.endswith("." + text(attribute)) for qualified_name in positions.returns)
            ):
                return True
        if text(function) == "str" and arguments is not None and arguments.named_child_count == 1:
            inner = arguments.named_children[0]
            return _names_value(inner, positions, imports)
    return False


def _argparse_option_names(arguments: Node | None, positions: Positions) -> bool:
    """`parser.add_argument("--device", default="cuda")`: the option's own names say what it holds."""
    if arguments is None or arguments.type != "argument_list":
        return False
    call = arguments.parent
    function = call.child_by_field_name("function") if call is not None else None
    if function is None or not text(function).endswith("add_argument"):
        return False
    for argument in arguments.named_children:
        if argument.type == "string" and positions.names_value(text(argument).strip("\"'").lstrip("-")):
            return True
        if argument.type == "keyword_argument" and text(argument.child_by_field_name("name") or argument) == "dest":
            return _names(argument.child_by_field_name("value"), positions)
    return False


def _qualified(function: Node, imports: Imports) -> str | None:
    parts: list[str] = []
    current: Node | None = function
    while current is not None and current.type == "attribute":
        attribute = current.child_by_field_name("attribute")
        if attribute is None:
            return None
        parts.append(text(attribute))
        current = current.child_by_field_name("object")
    if current is None or current.type != "identifier":
        return None
    parts.append(text(current))
    parts.reverse()
    resolved = imports.resolve(parts)
    return ".".join(resolved) if resolved is not None else None


def _enclosing(node: Node, kind: str) -> Node | None:
    current = node.parent
    while current is not None:
        if current.type == kind:
            return current
        if current.type in ("class_definition", "module"):
            return None
        current = current.parent
    return None


# ---- programs started from Python ----------------------------------------------------------------------------------
def command_program(data: bytes, string: Node, calls: frozenset[str], imports: Imports) -> str | None:
    """The program a string names when it starts a process: `subprocess.run(["nvidia-smi", ...])`,
    `os.system("nvcc --version")`. The program's name as written (a path's last component), else None."""
    holder = string.parent
    value = string
    if holder is not None and holder.type in ("list", "tuple"):
        if holder.named_children[:1] != [string]:
            return None  # only the first element of an argument list is the program
        value, holder = holder, holder.parent
    if holder is None or holder.type != "argument_list" or holder.named_children[:1] != [value]:
        return None
    call = holder.parent
    function = call.child_by_field_name("function") if call is not None else None
    if function is None or _qualified(function, imports) not in calls:
        return None
    found = literal(data, string)
    if found is None or not found.content.strip():
        return None
    first = found.content.split()[0] if value is string else found.content
    return first.rsplit("/", 1)[-1]


# ---- environment variables ------------------------------------------------------------------------------------
def is_env_key(string: Node, imports: Imports) -> bool:
    """A key of the process environment: `os.environ["X"]`, `os.getenv("X")`, `"X" in os.environ`,
    `env={"X": ...}`, `os.environ.update({"X": ...})`, `monkeypatch.setenv("X", ...)`."""
    value = string
    parent = value.parent
    while parent is not None and parent.type == "parenthesized_expression":
        value, parent = parent, parent.parent
    if parent is None:
        return False
    if parent.type == "subscript" and parent.child_by_field_name("subscript") == value:
        return _is_environ(parent.child_by_field_name("value"), imports)
    if parent.type == "comparison_operator":
        others = [c for c in parent.named_children if c != value]
        return any(_is_environ(other, imports) for other in others)
    if parent.type == "argument_list":
        call = parent.parent
        function = call.child_by_field_name("function") if call is not None else None
        if function is None or parent.named_children[0] != value:
            return False
        qualified = _qualified(function, imports)
        if qualified in _ENV_FUNCTIONS:
            return True
        if function.type == "attribute":
            method = text(function.child_by_field_name("attribute") or function)
            obj = function.child_by_field_name("object")
            if method in _ENV_METHODS:
                return True
            if method in ("get", "setdefault", "pop") and _is_environ(obj, imports):
                return True
        return False
    if parent.type == "pair" and parent.child_by_field_name("key") == value:
        dictionary = parent.parent
        if dictionary is None or dictionary.type != "dictionary":
            return False
        holder = dictionary.parent
        if holder is not None and holder.type == "keyword_argument":
            return text(holder.child_by_field_name("name") or holder) == "env"
        if holder is not None and holder.type == "argument_list":
            call = holder.parent
            function = call.child_by_field_name("function") if call is not None else None
            if function is not None and function.type == "attribute":
                return text(function.child_by_field_name("attribute") or function) == "update" and _is_environ(
                    function.child_by_field_name("object"), imports
                )
        return any(
            child.type == "dictionary_splat" and _is_environ(child.named_children[0], imports)
            for child in dictionary.named_children
            if child.named_child_count
        )
    return False


def _is_environ(node: Node | None, imports: Imports) -> bool:
    if node is None:
        return False
    qualified = _qualified(node, imports)
    return qualified == ".".join(_ENVIRON)


def assigned_value(data: bytes, string: Node) -> str | None:
    """The literal value given to an environment key, when there is one (`os.environ[K] = "0,1"`,
    `os.environ.setdefault(K, "0")`, `{K: "1"}`)."""
    parent = string.parent
    if parent is None:
        return None
    candidate: Node | None = None
    if parent.type == "subscript":
        assignment = parent.parent
        if (
            assignment is not None
            and assignment.type == "assignment"
            and assignment.child_by_field_name("left") == parent
        ):
            candidate = assignment.child_by_field_name("right")
    elif parent.type == "argument_list":
        call = parent.parent
        function = call.child_by_field_name("function") if call is not None else None
        setter = function is not None and text(function).rsplit(".", 1)[-1] in ("setdefault", "putenv", "setenv")
        values = [c for c in parent.named_children if c.type != "comment"]
        if setter and len(values) > 1:
            candidate = values[1]
    elif parent.type == "pair":
        candidate = parent.child_by_field_name("value")
    if candidate is None or candidate.type != "string":
        return None
    value = literal(data, candidate)
    if value is None or value.formatted:
        return None
    return value.content


def ascending_ids(value: str) -> bool:
    if not _ASCENDING_IDS.match(value):
        return False
    ids = [int(part) for part in value.split(",")]
    return all(a < b for a, b in itertools.pairwise(ids))


# ---- backends ---------------------------------------------------------------------------------------------------
_BACKEND_SPEC = re.compile(r"^(?:nccl|(?:\w+:\w+)(?:,\w+:\w+)*)$")


def is_backend_spec(content: str) -> bool:
    """`nccl`, or a per-device list of backends naming it (`cuda:nccl,cpu:gloo`)."""
    return "nccl" in content and bool(_BACKEND_SPEC.match(content))


def rewrite_backend_spec(content: str, backend: str, device: str, device_types: frozenset[str]) -> str:
    """`nccl` -> `hccl`; `cuda:nccl,cpu:gloo` -> `npu:hccl,cpu:gloo`."""
    parts = []
    for item in content.split(","):
        if ":" in item:
            kind, name = item.split(":", 1)
            parts.append(f"{device if kind in device_types else kind}:{backend if name == 'nccl' else name}")
        else:
            parts.append(backend if item == "nccl" else item)
    return ",".join(parts)


# ---- extensions -------------------------------------------------------------------------------------------------
def passes_cuda_sources(call: Node) -> bool:
    """A build call that compiles CUDA: `cuda_sources=...`, or a `.cu`/`.cuh` file among its arguments."""
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return False
    stack = list(arguments.named_children)
    while stack:
        node = stack.pop()
        if node.type == "keyword_argument" and text(node.child_by_field_name("name") or node) == "cuda_sources":
            return True
        if node.type == "string":
            if _CUDA_SOURCE.search(text(node).strip("\"'")):
                return True
            continue
        if node.type in ("lambda", "call"):
            continue
        stack.extend(node.named_children)
    return False
