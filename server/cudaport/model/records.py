"""Records: classes of named fields, made as `dataclasses.dataclass` makes them, at a third of its cost.

A one-file `check` builds about fifty such classes before it reads the file. `dataclasses` compiles each generated
method with an `exec` of its own (five or six per frozen class, half a millisecond a class on Python 3.11, four
fifths of it in the compiler) and imports `inspect` to do it; that was a quarter of the command's start-up. Here a
class's methods are one piece of source, compiled once and kept, as Python keeps a module's bytecode: the code
objects are marshalled to `records-<python>.marshal` in the cache folder (resources.cache), keyed by their source,
and a later process unmarshals and execs the ones it needs without compiling. Nothing beyond the modules every run
loads is imported.

What is supported is what cudaport's classes use: fields from annotations (a base record's first), defaults,
`field(default_factory=..., repr=False, compare=False, init=False)`, `__post_init__`, `frozen`, `slots`, `eq`, and
the functions `fields`, `replace` and `astuple` (shallow: a record's values as they are). The generated methods
behave as dataclasses' do: `__init__`, `__repr__`, `__eq__` (same class, fields compared in order), `__hash__`
(frozen and compared classes hash their fields; compared mutable ones are unhashable), `__match_args__`, and, for
frozen classes, assignment refused with FrozenInstanceError. A frozen class with slots pickles its fields as a
tuple. Methods the class body defines itself are kept. mypy reads `record` as a dataclass decorator (PEP 681).
"""

from __future__ import annotations

import marshal
import sys
from collections.abc import Callable
from types import CodeType
from typing import TYPE_CHECKING, Any, TypeVar, overload

from ..resources import cache

try:  # CPython's own BLAKE2: hashlib would load OpenSSL first
    from _blake2 import blake2b
except ImportError:  # another Python
    from hashlib import blake2b

T = TypeVar("T")

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform  # in typing from Python 3.11; for type checkers only
else:

    def dataclass_transform(**_options: Any) -> Callable[[T], T]:
        return lambda function: function


class FrozenInstanceError(AttributeError):
    """An assignment to (or deletion of) a field of a frozen record."""


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """One field of a record: its name and how __init__, __repr__, __eq__ and __hash__ treat it."""

    __slots__ = ("compare", "default", "default_factory", "init", "name", "repr")

    def __init__(self, default: Any, default_factory: Any, init: bool, shown: bool, compare: bool) -> None:
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = shown
        self.compare = compare

    def __repr__(self) -> str:
        return f"Field(name={self.name!r})"


# `repr` is the keyword dataclasses.field takes (and type checkers know): it shadows the builtin here only.
@overload
def field(*, default: T, init: bool = True, repr: bool = True, compare: bool = True) -> T: ...
@overload
def field(*, default_factory: Callable[[], T], init: bool = True, repr: bool = True, compare: bool = True) -> T: ...
@overload
def field(*, init: bool = True, repr: bool = True, compare: bool = True) -> Any: ...
def field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    init: bool = True,
    repr: bool = True,
    compare: bool = True,
) -> Any:
    """A field with a default made by `default_factory` (a fresh list for each record), left out of the
    record's repr or of its comparison and hash, or set by __post_init__ rather than __init__ (`init=False`)."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("a field takes a default or a default_factory, not both")
    return Field(default, default_factory, init, repr, compare)


_RECORD_FIELDS = "__record_fields__"


def _is_class_var(annotation: object) -> bool:
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    return isinstance(text, str) and (text.startswith("ClassVar") or text.startswith("typing.ClassVar"))


def _collect(cls: type) -> list[Field]:
    found: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for inherited in getattr(base, _RECORD_FIELDS, ()):
            found[inherited.name] = inherited
    own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063  # this class's own, in order (inspect: not loaded)
    for name, annotation in own.items():
        if _is_class_var(annotation):
            continue
        value = cls.__dict__.get(name, MISSING)
        made = value if isinstance(value, Field) else Field(value, MISSING, True, True, True)
        made.name = name
        if isinstance(made.default, (list, dict, set)):
            raise ValueError(f"{cls.__name__}.{name}: a mutable default is shared by every record: use default_factory")
        found.pop(name, None)  # redefined: it takes its new place, as in dataclasses
        found[name] = made
    fields_ = list(found.values())
    seen_default = False
    for item in fields_:
        if not item.init:
            continue
        if item.default is not MISSING or item.default_factory is not MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f"{cls.__name__}: non-default field {item.name!r} follows a field with a default")
    return fields_


def _methods(
    cls: type, fields_: list[Field], frozen: bool, eq: bool, slots: bool
) -> tuple[str, dict[str, Any], list[str]]:
    """The source of the class's methods (one function returning them all), its globals, and their names."""
    scope: dict[str, Any] = {"_set": object.__setattr__, "MISSING": MISSING, "FrozenInstanceError": FrozenInstanceError}
    names: list[str] = []
    lines: list[str] = []
    assign = "_set(self, {name!r}, {value})" if frozen else "self.{name} = {value}"
    params = []
    body = []
    for index, item in enumerate(fields_):
        if item.default_factory is not MISSING:
            scope[f"_factory_{index}"] = item.default_factory
        if item.default is not MISSING:
            scope[f"_default_{index}"] = item.default
        if item.init:
            if item.default_factory is not MISSING:
                params.append(f"{item.name}=MISSING")
                value = f"_factory_{index}() if {item.name} is MISSING else {item.name}"
            else:
                params.append(item.name if item.default is MISSING else f"{item.name}=_default_{index}")
                value = item.name
        elif item.default_factory is not MISSING:
            value = f"_factory_{index}()"
        elif item.default is not MISSING:
            value = f"_default_{index}"
        else:
            continue  # set by __post_init__
        body.append("  " + assign.format(name=item.name, value=value))
    if hasattr(cls, "__post_init__"):
        body.append("  self.__post_init__()")
    own = cls.__dict__
    if "__init__" not in own:
        lines += [f"def __init__(self{''.join(', ' + p for p in params)}):", *(body or ["  pass"])]
        names.append("__init__")
    shown = [f.name for f in fields_ if f.repr]
    if "__repr__" not in own:
        inner = ", ".join(f"{name}={{self.{name}!r}}" for name in shown)
        lines += ["def __repr__(self):", f"  return f'{{self.__class__.__qualname__}}({inner})'"]
        names.append("__repr__")
    compared = [f for f in fields_ if f.compare]
    values = "(" + "".join(f"self.{f.name}," for f in compared) + ")"
    if eq and "__eq__" not in own:
        others = "(" + "".join(f"other.{f.name}," for f in compared) + ")"
        lines += [
            "def __eq__(self, other):",
            "  if other.__class__ is self.__class__:",
            f"    return {values} == {others}",
            "  return NotImplemented",
        ]
        names.append("__eq__")
    if eq and frozen and "__hash__" not in own:
        lines += ["def __hash__(self):", f"  return hash({values})"]
        names.append("__hash__")
    if frozen:
        lines += [
            "def __setattr__(self, name, value):",
            "  raise FrozenInstanceError(f'cannot assign to field {name!r}')",
            "def __delattr__(self, name):",
            "  raise FrozenInstanceError(f'cannot delete field {name!r}')",
        ]
        names += ["__setattr__", "__delattr__"]
        if slots:
            every = "(" + "".join(f"self.{f.name}," for f in fields_) + ")"
            lines += ["def __getstate__(self):", f"  return {every}", "def __setstate__(self, state):"]
            lines += [f"  _set(self, {f.name!r}, state[{i}])" for i, f in enumerate(fields_)] or ["  pass"]
            names += ["__getstate__", "__setstate__"]
    source = "\n".join(lines) + f"\n_made = ({''.join(n + ', ' for n in names)})\n"
    return source, scope, names


# ---- the compiled methods, kept between processes ---------------------------------------------------------------
_HEADER = f"cudaport records 2 {sys.version}\n".encode()
_LIMIT = 4096  # entries kept: every class of a few versions of cudaport
_codes: dict[str, bytes | CodeType] | None = None  # key -> its code, marshalled until first used
_unsaved = False


def _file() -> Any:
    folder = cache.cache_dir()
    return None if folder is None else folder / f"records-{sys.implementation.cache_tag}.marshal"


def _load() -> dict[str, bytes | CodeType]:
    path = _file()
    if path is None:
        return {}
    try:
        data = path.read_bytes()
        if not data.startswith(_HEADER):
            return {}
        loaded = marshal.loads(data[len(_HEADER) :])
    except Exception:  # none yet, unreadable, truncated, another Python's: compile, and write it anew
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _compiled(source: str, filename: str) -> CodeType:
    global _codes, _unsaved
    if _codes is None:
        _codes = _load()
    # by a digest of the source: the file is read whole at every start, and the sources are most of its bytes
    key = f"{filename}\n{blake2b(source.encode(), digest_size=16).hexdigest()}"
    kept = _codes.get(key)
    if isinstance(kept, bytes):  # each entry is unmarshalled on its own: a run builds a third of the classes
        try:
            kept = _codes[key] = marshal.loads(kept)
        except Exception:
            kept = None
    if isinstance(kept, CodeType):
        return kept
    code = _codes[key] = compile(source, filename, "exec")
    if not _unsaved:
        _unsaved = True
        import atexit

        atexit.register(save)
    return code


def save() -> None:
    """Write the code compiled in this process beside what was kept (the command line calls it before its fast
    exit, which skips atexit). Never raises."""
    global _unsaved
    path = _file()
    if not _unsaved or _codes is None or path is None:
        return
    _unsaved = False
    kept = _codes if len(_codes) <= _LIMIT else {}
    try:
        payload = marshal.dumps({k: v if isinstance(v, bytes) else marshal.dumps(v) for k, v in kept.items()})
    except ValueError:  # a value marshal cannot write: nothing is kept rather than a part
        return
    cache.write(path, _HEADER + payload)


def _build(cls: type, frozen: bool, slots: bool, eq: bool) -> type:
    fields_ = _collect(cls)
    source, scope, names = _methods(cls, fields_, frozen, eq, slots)
    exec(_compiled(source, f"<record {cls.__module__}.{cls.__qualname__}>"), scope)
    made = dict(zip(names, scope["_made"], strict=True))
    if slots:
        namespace = {k: v for k, v in cls.__dict__.items() if k not in ("__dict__", "__weakref__")}
        inherited = {s for base in cls.__mro__[1:] for s in getattr(base, "__slots__", ())}
        namespace["__slots__"] = tuple(f.name for f in fields_ if f.name not in inherited)
        for item in fields_:
            namespace.pop(item.name, None)  # a default would shadow the slot
        cls = type(cls)(cls.__name__, cls.__bases__, namespace)
    else:
        for item in fields_:
            if item.name in cls.__dict__:
                if item.default is MISSING:
                    delattr(cls, item.name)
                else:
                    setattr(cls, item.name, item.default)
    for name, function in made.items():
        function.__qualname__ = f"{cls.__qualname__}.{name}"
        function.__module__ = cls.__module__
        setattr(cls, name, function)
    if eq and not frozen and "__hash__" not in cls.__dict__:
        cls.__hash__ = None  # type: ignore[assignment]  # compared by value and mutable: unhashable
    setattr(cls, _RECORD_FIELDS, tuple(fields_))
    setattr(cls, "__match_args__", tuple(f.name for f in fields_ if f.init))  # noqa: B010  # not assignable, says mypy
    return cls


@overload
def record(cls: type[T], /) -> type[T]: ...
@overload
def record(*, frozen: bool = False, slots: bool = False, eq: bool = True) -> Callable[[type[T]], type[T]]: ...
@dataclass_transform(field_specifiers=(field, Field))
def record(
    cls: type[T] | None = None, /, *, frozen: bool = False, slots: bool = False, eq: bool = True
) -> type[T] | Callable[[type[T]], type[T]]:
    """The class made a record (see the module's docstring): `@record` or `@record(frozen=True, slots=True)`."""

    def wrap(target: type[T]) -> type[T]:
        return _build(target, frozen, slots, eq)

    return wrap if cls is None else wrap(cls)


def is_record(value: object) -> bool:
    return hasattr(value if isinstance(value, type) else type(value), _RECORD_FIELDS)


def fields(value: object) -> tuple[Field, ...]:
    """A record's (or record class's) fields, in order."""
    kind = value if isinstance(value, type) else type(value)
    try:
        return tuple(getattr(kind, _RECORD_FIELDS))
    except AttributeError:
        raise TypeError(f"{kind.__name__} is not a record") from None


def replace(value: T, /, **changes: Any) -> T:
    """A copy of the record `value` with `changes` to its fields (made through __init__, as dataclasses.replace)."""
    arguments = {}
    for item in fields(value):
        if not item.init:
            if item.name in changes:
                raise ValueError(f"field {item.name!r} is not set by __init__ and cannot be replaced")
            continue
        arguments[item.name] = changes.pop(item.name) if item.name in changes else getattr(value, item.name)
    if changes:
        raise TypeError(f"{type(value).__name__} has no field {next(iter(changes))!r}")
    return type(value)(**arguments)


def astuple(value: object) -> tuple[Any, ...]:
    """A record's values in field order, as they are (not copied, not unfolded)."""
    return tuple(getattr(value, item.name) for item in fields(value))


__all__ = [
    "MISSING", "Field", "FrozenInstanceError", "astuple", "field", "fields", "is_record", "record", "replace", "save",
]  # fmt: skip
