"""The engine's ranged analysis (what the language server re-analyses after an edit) must find exactly what a
whole-file analysis finds, range by range: the same findings, messages, difficulties and fixes."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from conftest import finding_key
from cudaport.engine.engine import Engine
from cudaport.model.findings import Finding
from cudaport.model.source import LineIndex
from cudaport.project.config import Settings

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted([*ROOT.joinpath("tests/lsp/data").glob("*.cu"), *ROOT.joinpath("examples/cuda").glob("*.cu")])


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
@pytest.mark.parametrize("seed", range(6))
def test_ranges_partition_the_whole_file_analysis(path: Path, seed: int) -> None:
    engine = Engine(Settings())
    data = path.read_bytes()
    tree = engine.analyzer("c").parse(data)
    whole, _ = engine.check_data(data, "c", None, tree)
    assert whole, f"{path.name} has findings to compare"
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(1, len(data)), 12))
    bounds = [0, *cuts, len(data)]
    pieces: list[Finding] = []
    for lo, hi in itertools.pairwise(bounds):
        found, _ = engine.check_data(data, "c", None, tree, ranges=[(lo, hi)])
        assert all(lo <= f.start < hi for f in found), "a ranged analysis returned a finding outside its range"
        pieces.extend(found)
    assert sorted(map(finding_key, pieces)) == sorted(map(finding_key, whole))


def test_a_users_own_function_elsewhere_in_the_file_is_not_cuda() -> None:
    """`cudaMalloc` declared by the user outside the analysed range still makes its uses the user's own."""
    declaration = b"int cudaMalloc(void** p, int n) { return 0; }\n"
    source = declaration + b"\n" * 40 + b"void f(void** p) { cudaMalloc(p, 4); }\n"
    engine = Engine(Settings())
    tree = engine.analyzer("c").parse(source)
    use = source.rindex(b"cudaMalloc")
    whole, _ = engine.check_data(source, "c", None, tree)
    ranged, _ = engine.check_data(source, "c", None, tree, ranges=[(use - 20, use + 20)])
    assert whole == [] and ranged == []


def test_line_index_follows_edits() -> None:
    rng = random.Random(7)
    data = "ab\n中文\r\n\n😀x\n".encode()
    index = LineIndex(data)
    for _ in range(3000):
        start = rng.randrange(len(data) + 1)
        end = rng.randrange(start, len(data) + 1)
        text = rng.choice([b"", b"\n", b"x", b"\n\n", b"yy\nz", b"\r\n"])
        data = data[:start] + text + data[end:]
        index = index.replaced(start, end, text, data)
        fresh = LineIndex(data)
        assert [index.line_start(i) for i in range(fresh.line_count)] == [
            fresh.line_start(i) for i in range(fresh.line_count)
        ]
        assert index.line_count == fresh.line_count
        if len(data) > 300:
            data, index = data[:40], LineIndex(data[:40])


def test_byte_columns_never_split_a_character() -> None:
    index = LineIndex("a中b".encode())
    assert [index.offset(0, column, "byte") for column in range(6)] == [0, 1, 1, 1, 4, 5]
