"""model.records: the classes it makes behave as dataclasses' do (what cudaport's classes rely on), and the
compiled methods it keeps in the cache folder are used by the next process, survive a corrupt file and are written
by the command line's fast exit."""

from __future__ import annotations

import dataclasses
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from cudaport.model.records import FrozenInstanceError, astuple, field, fields, is_record, record, replace


@record(frozen=True, slots=True)
class Point:
    x: int
    y: int = 0
    tags: tuple[str, ...] = ()
    note: str = field(default="", repr=False, compare=False)


@record
class Bag:
    name: str
    items: list[int] = field(default_factory=list)
    size: int = field(init=False)

    def __post_init__(self) -> None:
        self.size = len(self.items)


@record
class Labelled(Bag):
    label: str = "x"


@dataclasses.dataclass(frozen=True, slots=True)
class PointDC:
    x: int
    y: int = 0
    tags: tuple[str, ...] = ()
    note: str = dataclasses.field(default="", repr=False, compare=False)


def test_a_frozen_slotted_record_behaves_as_the_dataclass() -> None:
    ours, theirs = Point(1, 2, ("a",), note="n"), PointDC(1, 2, ("a",), note="n")
    assert repr(ours).replace("Point", "PointDC") == repr(theirs) == "PointDC(x=1, y=2, tags=('a',))"
    assert ours == Point(1, 2, ("a",), note="other") and ours != Point(1, 3)  # `note` is not compared
    assert hash(ours) == hash(Point(1, 2, ("a",))) and len({ours, Point(1, 2, ("a",))}) == 1
    assert ours != theirs and (ours == (1, 2)) is False
    with pytest.raises(FrozenInstanceError):
        ours.x = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del ours.y  # type: ignore[misc]
    assert not hasattr(ours, "__dict__") and Point.__slots__ == ("x", "y", "tags", "note")
    assert pickle.loads(pickle.dumps(ours)) == ours and pickle.loads(pickle.dumps(ours)).note == "n"
    assert Point.__match_args__ == ("x", "y", "tags", "note")
    assert replace(ours, y=7) == Point(1, 7, ("a",)) and ours.y == 2
    assert astuple(ours) == (1, 2, ("a",), "n")
    assert [f.name for f in fields(Point)] == [f.name for f in dataclasses.fields(PointDC)]
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        replace(ours, z=1)


def test_factories_post_init_inheritance_and_mutability() -> None:
    first, second = Bag("a"), Bag("b")
    first.items.append(1)
    assert second.items == [] and first.size == 0 and Bag("c", [1, 2]).size == 2
    assert Bag("a", [1]) == Bag("a", [1]) and Bag.__hash__ is None  # compared and mutable: unhashable
    child = Labelled("n", [3], label="y")
    assert [f.name for f in fields(child)] == ["name", "items", "size", "label"] and child.size == 1
    assert repr(child) == "Labelled(name='n', items=[3], size=1, label='y')"
    with pytest.raises(ValueError, match="not set by __init__"):
        replace(first, size=3)
    assert is_record(child) and is_record(Labelled) and not is_record(PointDC)
    with pytest.raises(ValueError, match="mutable default"):

        @record
        class Shared:
            items: list[int] = []  # noqa: RUF012

    @record(eq=False)
    class Identity:
        value: int

    assert Identity(1) != Identity(1) and hash(Identity(1)) != 0


def _fresh(code: str, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, CUDAPORT_CACHE_DIR=str(cache), PYTHONPATH=str(REPO / "server"))
    env.pop("CUDAPORT_NO_CACHE", None)
    return subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=120)


_COUNT = """
import cudaport.model.records as records
compiled = []
records.compile = lambda *a, **k: compiled.append(a[1]) or compile(*a, **k)
import cudaport.engine.engine
print(len(compiled))
"""


def test_the_compiled_methods_are_kept_for_the_next_process(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _fresh(_COUNT, cache)
    assert first.returncode == 0, first.stderr
    assert int(first.stdout) > 20  # the engine's classes, every one compiled
    kept = next(cache.glob("records-*.marshal"))
    second = _fresh(_COUNT, cache)
    assert second.stdout.strip() == "0", second.stderr  # none compiled again
    kept.write_bytes(kept.read_bytes()[:100] + b"\x00garbage")  # truncated and corrupt: compiled, rewritten
    third = _fresh(_COUNT, cache)
    assert third.returncode == 0 and int(third.stdout) == int(first.stdout), third.stderr
    assert _fresh(_COUNT, cache).stdout.strip() == "0"


def test_the_command_lines_fast_exit_writes_them(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    source = tmp_path / "k.cu"
    source.write_text("void f(float* p) { cudaFree(p); }\n")
    env = dict(os.environ, CUDAPORT_CACHE_DIR=str(cache), PYTHONPATH=str(REPO / "server"))
    env.pop("CUDAPORT_NO_CACHE", None)
    command = [sys.executable, "-m", "cudaport", "check", str(source), "--no-cache"]
    checked = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert checked.returncode == 1 and "CP1001" in checked.stdout, checked.stderr
    assert list(cache.glob("records-*.marshal")), "the fast exit skipped writing the compiled methods"
