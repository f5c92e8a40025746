"""Ranged analysis of Python (what the language server re-analyses after an edit) must find exactly what a
whole-file analysis finds, range by range: the same findings, messages, difficulties and fixes, for every target,
wherever the ranges cut (through imports, chains that span lines, strings, f-strings and call arguments)."""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path

import pytest

from conftest import finding_key
from cudaport.engine.engine import Engine
from cudaport.model.findings import Finding
from cudaport.project.config import Settings

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(
    [
        *ROOT.joinpath("tests/fixtures/python").glob("*.py"),
        *ROOT.joinpath("examples/pytorch").glob("*.py"),
        *ROOT.joinpath("tests/fixtures/python_ranges").glob("*.py"),
    ]
)
TARGETS = ("hip", "npu", "mlu")
# Places where a cut is most likely to separate a finding from what decides it: inside import statements, at
# the dots of chains, inside string and f-string literals and their interpolations.
_TRICKY = re.compile(rb"import |from |\.cuda|\.Stream|[\"']|\{|\(|\n")


def _engines() -> dict[str, Engine]:
    return {target: Engine(Settings(target=target)) for target in TARGETS}


ENGINES = _engines()


def _cuts(data: bytes, rng: random.Random, count: int) -> list[int]:
    """Cut points: half anywhere, half just inside a tricky spot."""
    tricky = [m.start() + rng.randrange(max(1, m.end() - m.start())) for m in _TRICKY.finditer(data)]
    chosen = set(rng.sample(range(1, len(data)), count // 2))
    chosen.update(rng.sample(tricky, min(len(tricky), count - len(chosen))))
    return sorted(c for c in chosen if 0 < c < len(data))


def _whole(engine: Engine, data: bytes) -> tuple[list[Finding], object]:
    tree = engine.analyzer("python").parse(data)
    findings, _ = engine.check_data(data, "python", None, tree)
    return findings, tree


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
@pytest.mark.parametrize("seed", range(8))
def test_ranges_partition_the_whole_file_analysis(path: Path, target: str, seed: int) -> None:
    engine = ENGINES[target]
    data = path.read_bytes()
    whole, tree = _whole(engine, data)
    if path.name != "prose_only.py":
        assert whole, f"{path.name} has findings to compare"
    rng = random.Random(seed)
    bounds = [0, *_cuts(data, rng, 16), len(data)]
    pieces: list[Finding] = []
    for lo, hi in itertools.pairwise(bounds):
        found, _ = engine.check_data(data, "python", None, tree, ranges=[(lo, hi)])
        assert all(lo <= f.start < hi for f in found), "a ranged analysis returned a finding outside its range"
        pieces.extend(found)
    assert sorted(map(finding_key, pieces)) == sorted(map(finding_key, whole))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_half_typed_code(path: Path, target: str) -> None:
    """Half-typed lines (an open bracket or string, a decorator without its function) make tree-sitter recover
    with ERROR nodes, sometimes around the rest of the file: ranged analysis still partitions the whole."""
    engine = ENGINES[target]
    original = path.read_bytes()
    rng = random.Random(path.name + target)
    lines = original.split(b"\n")
    for fragment in _HALF_TYPED:
        at = rng.randrange(len(lines))
        indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
        data = b"\n".join([*lines[:at], indent + fragment, *lines[at:]])
        whole, tree = _whole(engine, data)
        bounds = [0, *_cuts(data, rng, 12), len(data)]
        pieces: list[Finding] = []
        for lo, hi in itertools.pairwise(bounds):
            found, _ = engine.check_data(data, "python", None, tree, ranges=[(lo, hi)])
            pieces.extend(found)
        assert sorted(map(finding_key, pieces)) == sorted(map(finding_key, whole)), fragment


@pytest.mark.parametrize("target", TARGETS)
def test_a_buffer_that_error_recovery_turns_into_one_error(target: str) -> None:
    """Some half-typed lines make the whole tree one ERROR node (no module at all): statements are then the pieces
    error recovery left, and ranges still partition the whole-file analysis."""
    engine = ENGINES[target]
    analyzer = engine.analyzer("python")
    checked = 0
    for path in SOURCES:
        lines = path.read_bytes().split(b"\n")
        for at, fragment in itertools.product(range(len(lines)), (b"x = x.to(", b'f"{torch.cuda.device_count()')):
            indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
            data = b"\n".join([*lines[:at], indent + fragment, *lines[at:]])
            if analyzer.parse(data).root_node.type != "ERROR":
                continue
            whole, tree = _whole(engine, data)
            rng = random.Random(at)
            bounds = [0, *_cuts(data, rng, 12), len(data)]
            pieces: list[Finding] = []
            for lo, hi in itertools.pairwise(bounds):
                found, _ = engine.check_data(data, "python", None, tree, ranges=[(lo, hi)])
                pieces.extend(found)
            assert sorted(map(finding_key, pieces)) == sorted(map(finding_key, whole)), (path.name, at, fragment)
            checked += 1
            break
    assert checked >= 3, "the sources no longer give tree-sitter a buffer it cannot recover a module from"


_HALF_TYPED = (
    b"x = x.to(",
    b"torch.cuda.synchronize(",
    b'device = "cuda',
    b'note = """cuda',
    b"@torch.cuda.amp.custom_fwd",
    b"with torch.cuda.stream(s)",
    b"if x.is_cuda",
    b"import torch.cuda as",
    b'f"{torch.cuda.device_count()',
)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_several_ranges_at_once(path: Path, target: str) -> None:
    """The language server asks for several windows in one call: the findings that start in any of them."""
    engine = ENGINES[target]
    data = path.read_bytes()
    whole, tree = _whole(engine, data)
    rng = random.Random(len(data))
    for _ in range(6):
        bounds = [0, *_cuts(data, rng, 10), len(data)]
        ranges = [(lo, hi) for lo, hi in itertools.pairwise(bounds) if rng.random() < 0.4]
        found, _ = engine.check_data(data, "python", None, tree, ranges=ranges)
        expected = [f for f in whole if any(lo <= f.start < hi for lo, hi in ranges)]
        assert sorted(map(finding_key, found)) == sorted(map(finding_key, expected))


def test_a_library_is_reported_at_its_first_use_only() -> None:
    """`import numba` does not report numba.cuda; its first use does (here the kernel's decorator, a finding of its
    own), wherever the analysed range lies."""
    source = b"import numba\n\n\n@numba.cuda.jit\ndef k(x):\n    i = numba.cuda.grid(1)\n\n\nnumba.cuda.synchronize()\n"
    engine = ENGINES["hip"]
    whole, tree = _whole(engine, source)
    assert [(f.rule, source[f.start : f.end]) for f in whole] == [("CP7050", b"numba.cuda.jit")]
    later = source.index(b"i = numba")
    found, _ = engine.check_data(source, "python", None, tree, ranges=[(later, len(source))])
    assert found == []


def test_an_alias_used_for_apis_that_need_a_person_keeps_its_import_in_every_range() -> None:
    """`tc.CUDAGraph()` far away from `tc.synchronize()` still makes the latter's fix unsafe."""
    source = b"import torch.cuda as tc\n\n\ndef f():\n    tc.synchronize()\n" + b"\n" * 30 + b"g = tc.CUDAGraph()\n"
    engine = ENGINES["npu"]
    whole, tree = _whole(engine, source)
    use = source.index(b"tc.synchronize")
    found, _ = engine.check_data(source, "python", None, tree, ranges=[(use, use + 20)])
    expected = [f for f in whole if f.start == use]
    assert expected and expected[0].fix is not None and not expected[0].fix.is_safe
    assert list(map(finding_key, found)) == list(map(finding_key, expected))


def test_a_build_call_is_found_from_the_line_of_its_function() -> None:
    """The `.cu` file that makes `load(...)` build CUDA code sits lines below the call: a range holding only the
    call's first line still finds it, and a range holding only the `.cu` line does not (it starts elsewhere)."""
    source = (
        b"from torch.utils.cpp_extension import load\n\n"
        b'ext = load(\n    name="fused",\n    sources=[\n        "fused.cpp",\n        "fused_kernel.cu",\n    ],\n)\n'
    )
    engine = ENGINES["npu"]
    whole, tree = _whole(engine, source)
    call = source.index(b"load(")
    assert [f.rule for f in whole if f.start == call] == ["CP7040"]
    line_end = source.index(b"\n", call)
    found, _ = engine.check_data(source, "python", None, tree, ranges=[(call, line_end)])
    assert list(map(finding_key, found)) == [finding_key(f) for f in whole if f.start == call]
    cu = source.index(b'"fused_kernel.cu"')
    found, _ = engine.check_data(source, "python", None, tree, ranges=[(cu, cu + 10)])
    assert found == []
