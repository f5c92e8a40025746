"""Whole-call rewrites (`rules/calls.toml`): a call whose arguments move, drop or gain values on the target.

Template language (the text outside braces is copied as it is, so constants are written literally):
    {n}        the n-th original argument (1-based)
    {n?}       an optional argument; with the comma before it, it disappears when the call has fewer arguments
    {n:TYPE}   the n-th argument cast to TYPE: `(void **)&p`; a C++ cast (`{n:reinterpret_cast<const void *>}`)
               is written as one: `reinterpret_cast<const void *>(kernel<T, 4>)`; nothing is added when the
               argument is already cast to that type, either way
    {&n}       the address of the n-th argument: `&id`, or `p` for `*p`; a call that passes anything else by
               value (a temporary) is not rewritten
An argument written twice in the template is evaluated twice, so the call is only rewritten when that argument
has no side effects (the analyzer decides; see `render(pure=...)`).

A symbol may have several templates for one target (a call with flags and one without, say): the first that fits
the call is used.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...i18n import t
from ...model.findings import Applicability
from ...model.records import field, record

_PLACEHOLDER = re.compile(r"\{(&)?(\d+)(\?)?(?::([^{}]+))?\}")
_OPTIONAL_WITH_COMMA = re.compile(r",\s*\{(\d+)\?\}")
# A primary expression: a name with member accesses and subscripts, a literal, or a parenthesised expression.
_PRIMARY = re.compile(r"^(?:[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*|\s*\[[^\[\]]*\])*|\d[\w.]*|\(.*\))$", re.DOTALL)
_SPACES = re.compile(r"\s+")
_CPP_CAST = re.compile(r"^(?:reinterpret|static|const)_cast<.+>$", re.DOTALL)
_NAME = re.compile(r"^(?:::)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*$")


def _normal(text: str) -> str:
    return _SPACES.sub("", text)


def _cast(arg: str, type_name: str) -> str:
    type_name = type_name.strip()
    if _CPP_CAST.match(type_name):
        pointee = type_name[type_name.index("<") + 1 : -1]
        if _normal(arg).startswith((_normal(type_name) + "(", _normal(f"({pointee})"))):
            return arg  # already cast to that type
        return f"{type_name}({arg})"
    cast = f"({type_name})"
    if _normal(arg).startswith(_normal(cast)):
        return arg  # already cast to that type
    operand = arg if _PRIMARY.match(arg) or (arg.startswith("&") and _PRIMARY.match(arg[1:].strip())) else f"({arg})"
    return f"{cast}{operand}"


def _address(arg: str) -> str | None:
    if arg.startswith("*") and _PRIMARY.match(arg[1:].strip()):
        return arg[1:].strip()
    if _PRIMARY.match(arg) and not arg[0].isdigit() and not arg.startswith("("):
        return f"&{arg}"
    return None


@record(frozen=True, slots=True)
class CallRewrite:
    symbol: str
    target: str
    template: str  # e.g. "aclrtMemcpy({1}, {3}, {2}, {3}, {4})"
    applicability: Applicability
    note: str = ""
    arguments: tuple[int, int] | None = None  # accepted argument counts; default: what the template uses
    require: Mapping[int, tuple[str, ...]] = field(default_factory=dict)  # argument -> allowed spellings
    same: tuple[int, ...] = ()  # arguments that must be written identically (an in-place call)
    names: tuple[int, ...] = ()  # arguments that must be a plain (qualified) name, such as a `__constant__` symbol
    # words whose presence in the file means the call is another form of the API (CUDA 13's cudaMemLocation)
    unless_file_mentions: tuple[str, ...] = ()
    shape: str = ""  # the target's signature, for a person rewriting the call by hand

    @property
    def repeated(self) -> frozenset[int]:
        """The arguments (1-based) the template writes more than once (`aclrtMemcpy`'s size)."""
        indexes = [int(index) for _, index, _, _ in _PLACEHOLDER.findall(self.template)]
        return frozenset(i for i in indexes if indexes.count(i) > 1)

    @property
    def callee(self) -> str:
        return self.template.split("(", 1)[0].strip()

    def title(self, rendered: str) -> str:
        """The fix's title: what its edit writes."""
        if self.note:
            return t("Rewrite as `{call}` ({note})", call=rendered, note=t(self.note))
        return t("Rewrite as `{call}`", call=rendered)

    def render(
        self, args: Sequence[str], pure: Callable[[int], bool] | None = None, written: Sequence[str] | None = None
    ) -> str | None:
        """The rewritten call, or None when this call does not fit the template (argument count, required
        values, an argument used twice that has side effects, an address that cannot be taken). The template is
        matched against `args` as the call spells them; `written` (default: `args`) is what goes in their places
        (the arguments with their own CUDA names ported)."""
        out = args if written is None else written
        slots = [(int(index), bool(optional)) for _, index, optional, _ in _PLACEHOLDER.findall(self.template)]
        if self.arguments is not None:
            required, allowed = self.arguments
        else:
            required = max((index for index, optional in slots if not optional), default=0)
            allowed = max((index for index, _ in slots), default=0)
        if not required <= len(args) <= allowed:
            return None
        for index, spellings in self.require.items():
            if index <= len(args) and _normal(args[index - 1]) not in spellings:
                return None
        if self.same and len({_normal(args[i - 1]) for i in self.same if i <= len(args)}) > 1:
            return None
        if any(i <= len(args) and not _NAME.match(args[i - 1].strip()) for i in self.names):
            return None
        uses: dict[int, int] = {}
        for index, _ in slots:
            uses[index] = uses.get(index, 0) + 1
        if pure is not None and any(
            count > 1 and index <= len(args) and not pure(index) for index, count in uses.items()
        ):
            return None
        failed = False

        def optional_arg(match: re.Match[str]) -> str:
            index = int(match.group(1))
            return f", {out[index - 1]}" if index <= len(args) else ""

        def arg(match: re.Match[str]) -> str:
            nonlocal failed
            address, index, _, type_name = match.group(1), int(match.group(2)), match.group(3), match.group(4)
            if index > len(args):
                return ""
            value = out[index - 1].strip()
            if address:
                taken = _address(value)
                if taken is None:
                    failed = True
                    return ""
                return taken
            return _cast(value, type_name) if type_name else value

        rendered = _PLACEHOLDER.sub(arg, _OPTIONAL_WITH_COMMA.sub(optional_arg, self.template))
        return None if failed else rendered


@record(frozen=True, slots=True)
class CallSite:
    """A call one analysis rewrote whole: the template, the call's span and its arguments' (as written), so that
    the arguments' own renames can go into the rewrite once every finding is known."""

    rewrite: CallRewrite
    start: int
    end: int
    arguments: tuple[tuple[int, int], ...]
    spelled: tuple[str, ...]  # the arguments' text, which the template's requirements are checked against
    pure: Callable[[int], bool]
    text: str  # what the call's edit writes


def load_call_rewrites(table: Mapping[str, Any] | None) -> dict[tuple[str, str], tuple[CallRewrite, ...]]:
    """(symbol, target) -> its templates, in the order the table gives them."""
    out: dict[tuple[str, str], tuple[CallRewrite, ...]] = {}
    for entry in (table or {}).get("call", []):
        counts = entry.get("arguments")
        rewrite = CallRewrite(
            symbol=str(entry["symbol"]),
            target=str(entry["target"]),
            template=str(entry["template"]),
            applicability=Applicability(str(entry.get("applicability", "unsafe"))),
            note=str(entry.get("note", "")),
            arguments=(int(counts[0]), int(counts[1])) if counts else None,
            require={int(k): tuple(_normal(str(v)) for v in values) for k, values in entry.get("require", {}).items()},
            same=tuple(int(i) for i in entry.get("same", [])),
            names=tuple(int(i) for i in entry.get("names", [])),
            unless_file_mentions=tuple(str(w) for w in entry.get("unless-file-mentions", [])),
            shape=str(entry.get("shape", "")),
        )
        key = (rewrite.symbol, rewrite.target)
        out[key] = (*out.get(key, ()), rewrite)
    return out


# ---- the same rewrites as function-like macros, for a dual-stack portability header -------------------------------
COUNT_DISPATCH = "CUDAPORT_BY_COUNT"
_MAX_DISPATCHED = 8  # arguments CUDAPORT_BY_COUNT tells apart


def as_macros(name: str, rewrites: Sequence[CallRewrite]) -> list[str] | None:
    """`#define` lines that make every call of `name` that fits one of `rewrites` into the rewritten call, for the
    target branch of a portability header (the code keeps calling `name`); None when the templates cannot be
    macros: a rewrite that needs review (it drops a mask), or templates told apart by argument values rather than
    by how many arguments a call has.

    One template: `#define cudaX(a1, a2, ...) hipX(a1, (void **)(a2) , ##__VA_ARGS__)`, optional arguments passed
    through `__VA_ARGS__`. Several: one macro per argument count, picked by COUNT_DISPATCH."""
    if not rewrites or any(r.applicability is not Applicability.SAFE or not r.callee for r in rewrites):
        return None  # (a template that is an expression, not a call, is right for CUDA too: no macro needed)
    if any(r.require or r.same for r in rewrites):
        return None  # chosen by what the arguments say, which a macro cannot test
    if len(rewrites) == 1:
        macro = _macro(name, rewrites[0], None)
        return [macro] if macro is not None else None
    counts: dict[int, CallRewrite] = {}
    for rewrite in rewrites:
        slots = _slots(rewrite.template)
        if any(optional for _, optional in slots) or rewrite.arguments is not None:
            return None
        count = max((index for index, _ in slots), default=0)
        if count in counts or not 0 < count <= _MAX_DISPATCHED:
            return None
        counts[count] = rewrite
    lines = [f"#define {name}(...) {COUNT_DISPATCH}({name}, __VA_ARGS__)"]
    for count in sorted(counts):
        macro = _macro(f"CUDAPORT_{name}_{count}", counts[count], count)
        if macro is None:
            return None
        lines.append(macro)
    return lines


def dispatch_macros() -> list[str]:
    """COUNT_DISPATCH: `CUDAPORT_BY_COUNT(cudaX, a, b)` is `CUDAPORT_cudaX_2(a, b)`."""
    numbers = ", ".join(f"_{i}" for i in range(1, _MAX_DISPATCHED + 1))
    counts = ", ".join(str(i) for i in range(_MAX_DISPATCHED, -1, -1))
    return [
        f"#define CUDAPORT_COUNT_({numbers}, N, ...) N",
        f"#define CUDAPORT_COUNT(...) CUDAPORT_COUNT_(__VA_ARGS__, {counts})",
        "#define CUDAPORT_GLUE_(a, b) a##b",
        "#define CUDAPORT_GLUE(a, b) CUDAPORT_GLUE_(a, b)",
        f"#define {COUNT_DISPATCH}(name, ...) "
        "CUDAPORT_GLUE(CUDAPORT_##name##_, CUDAPORT_COUNT(__VA_ARGS__))(__VA_ARGS__)",
    ]


def _slots(template: str) -> list[tuple[int, bool]]:
    return [(int(index), bool(optional)) for _, index, optional, _ in _PLACEHOLDER.findall(template)]


def _macro(name: str, rewrite: CallRewrite, count: int | None) -> str | None:
    """One `#define` for `rewrite`; `count` fixes the number of arguments (else optional ones go to __VA_ARGS__)."""
    template = rewrite.template
    slots = _slots(template)
    required = max((index for index, optional in slots if not optional), default=0)
    optional = [index for index, is_optional in slots if is_optional]
    tail = ""
    if optional and count is None:
        # only a run of optional arguments at the end, in order and written plainly, can be passed on as they are
        expected = "".join(f", {{{i}?}}" for i in range(required + 1, required + 1 + len(optional)))
        body_end = template.rstrip()
        if not body_end.endswith(expected + ")") or optional != list(range(required + 1, required + 1 + len(optional))):
            return None
        template = body_end[: -len(expected + ")")] + ")"
        tail = " , ##__VA_ARGS__"
    elif optional:
        return None
    params = [f"a{i}" for i in range(1, (count if count is not None else required) + 1)]
    if tail:
        params.append("...")

    def argument(match: re.Match[str]) -> str:
        address, index, _, type_name = match.group(1), int(match.group(2)), match.group(3), match.group(4)
        value = f"a{index}"
        if address:
            return f"&({value})"
        if type_name:
            type_name = type_name.strip()
            return f"{type_name}({value})" if _CPP_CAST.match(type_name) else f"({type_name})({value})"
        return value

    body = _PLACEHOLDER.sub(argument, template)
    if tail:
        body = body[:-1] + tail + ")"
    return f"#define {name}({', '.join(params)}) {body}"
