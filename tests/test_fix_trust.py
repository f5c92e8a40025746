"""A fix never breaks a program, `fix` applies exactly what `check` counts, and the project's own names are not
CUDA's: through the CLI, on fixtures written in our own words after patterns seen in real projects."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest
from tree_sitter import Parser

from conftest import REPO, Cli
from cudaport.analyzers.c.language import CUDA_LANGUAGE
from cudaport.analyzers.c.names import CNames
from cudaport.analyzers.python.imports import PYTHON_LANGUAGE
from cudaport.analyzers.python.names import PythonNames
from cudaport.engine import consistency
from cudaport.engine.engine import Engine
from cudaport.model.findings import Applicability, Difficulty, Edit, Finding, Fix
from cudaport.project.config import Settings

TRUST = REPO / "tests" / "fixtures" / "trust"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(TRUST, root)
    return root


# ---- through the CLI -----------------------------------------------------------------------------------------
def test_a_loader_that_already_handles_both_devices_is_left_alone(cli: Cli, tree: Path) -> None:
    """The pattern of issue 27: each device's flag beside its twin, the program's own `is_cuda` and `cuda()`."""
    report = cli("check", "two_device_loader.py", "--target", "npu", "--format", "json", cwd=tree).json()
    by_line = {(d["line"], d["symbol"]): d for d in report["diagnostics"]}
    # the program's own attribute and method on `self` are no findings at all
    assert not [d for d in report["diagnostics"] if d["symbol"] == ".is_cuda"]
    assert by_line[(9, '"cuda"')]["difficulty"] == "portable"
    assert "statement beside it (line 10)" in by_line[(9, "torch.cuda.is_available")]["message"]
    # `loader.cuda()` may be the loader's own method or a tensor's: a person tells
    assert by_line[(29, ".cuda()")]["difficulty"] == "manual" and not by_line[(29, ".cuda()")]["fixable"]
    before = (tree / "two_device_loader.py").read_text()
    fixed = cli("fix", "two_device_loader.py", "--target", "npu", "--fail-on", "never", cwd=tree)
    assert fixed.code == 0 and "Fixed 0 findings" in fixed.out
    assert (tree / "two_device_loader.py").read_text() == before


def test_check_counts_what_fix_applies_and_the_recheck_is_what_is_left(cli: Cli, tree: Path) -> None:
    for target in ("hip", "npu", "mlu"):
        copy = tree.parent / f"copy-{target}"
        shutil.copytree(tree, copy)
        before = cli("check", ".", "--target", target, "--format", "json", "--exit-zero", cwd=copy).json()
        fixable = sum(1 for d in before["diagnostics"] if d["fixable"])
        fixed = cli("fix", ".", "--target", target, "--fail-on", "never", cwd=copy)
        assert f"Fixed {fixable} finding" in fixed.out, (target, fixed.out, fixed.err)
        assert "withheld" not in fixed.err
        after = cli("check", ".", "--target", target, "--format", "json", "--exit-zero", cwd=copy).json()
        assert len(after["diagnostics"]) == len(before["diagnostics"]) - fixable
        hardest = {}
        for d in before["diagnostics"]:
            key = (d["path"], d["rule"])
            hardest[key] = max(hardest.get(key, 0), _LEVELS[d["difficulty"]])
        assert all(_LEVELS[d["difficulty"]] <= hardest[(d["path"], d["rule"])] for d in after["diagnostics"])
        second = cli("fix", ".", "--target", target, "--diff", "--fail-on", "never", cwd=copy)
        assert second.out == "", second.out  # nothing more to do


_LEVELS = {"portable": 0, "mechanical": 1, "manual": 2, "blocker": 3}


def test_a_rewrite_that_would_not_parse_is_withheld_with_the_reason(cli: Cli, tree: Path) -> None:
    report = cli("check", "type_in_value_position.cu", "--target", "hip", "--format", "json", cwd=tree).json()
    by_line = {d["line"]: d for d in report["diagnostics"] if d["symbol"] == "cusolver_int_t"}
    assert by_line[5]["difficulty"] == "manual" and not by_line[5]["fixable"]
    assert "would no longer parse (line 5)" in by_line[5]["message"]
    assert by_line[5]["replacement"] == "int"  # what it maps to is still said
    assert by_line[6]["fixable"]  # a declaration takes the rename
    cli("fix", "type_in_value_position.cu", "--target", "hip", "--fail-on", "never", cwd=tree)
    fixed = (tree / "type_in_value_position.cu").read_bytes()
    assert b"(void)cusolver_int_t;" in fixed and b"  int rows = 4;" in fixed
    assert not Parser(CUDA_LANGUAGE).parse(fixed).root_node.has_error


def test_a_projects_own_wrapper_macro_is_not_the_api_it_wraps(cli: Cli, tree: Path) -> None:
    report = cli("check", "wrapped", "--target", "hip", "--format", "json", "--exit-zero", cwd=tree).json()
    symbols = {d["symbol"] for d in report["diagnostics"]}
    assert "nvmlCheck" not in symbols
    assert {"nvmlInit", "nvmlDeviceGetCount", "nvmlReturn_t"} <= symbols


# ---- the judge, in process -------------------------------------------------------------------------------------
PYTHON = Parser(PYTHON_LANGUAGE)


def _problems(source: str, edits: list[tuple[str, str, int]], parsed: bool) -> list[str]:
    """The problems of renaming the `nth` occurrence (0-based) of `old` to `new`, for each edit; predicted from
    the text before, or judged on the parsed result."""
    data = source.encode()
    found = []
    for old, new, nth in edits:
        start = -1
        for _ in range(nth + 1):
            start = data.index(old.encode(), start + 1)
        found.append(Edit(start, start + len(old), new))
    tree = PYTHON.parse(data)
    after = after_tree = None
    if parsed:
        from cudaport.model.source import apply_edits

        after = apply_edits(data, found)
        after_tree = PYTHON.parse(after)
    verdict = consistency.judge(PythonNames(), PYTHON.parse, data, tree, found, after, after_tree)
    assert verdict.parsed == parsed or parsed
    return [p.reason for p in verdict.problems]


LOADER = """\
class Loader:
    def __init__(self, device):
        self.is_cuda = device == "cuda"

    def ready(self):
        return self.is_cuda
"""


@pytest.mark.parametrize("parsed", [False, True], ids=["predicted", "parsed"])
def test_the_judge_names_every_way_a_rename_breaks_a_program(parsed: bool) -> None:
    assert (
        "`self.is_cuda` would still be read but no longer defined"
        in _problems(LOADER, [("is_cuda", "is_npu", 0)], parsed)[0]
    )
    assert "no longer read" in _problems(LOADER, [("is_cuda", "is_npu", 1)], parsed)[0]
    assert _problems(LOADER, [("is_cuda", "is_npu", 0), ("is_cuda", "is_npu", 1)], parsed) == []
    local = "def f():\n    ok = probe()\n    return ok\n"
    assert _problems(local, [("ok", "fine", 0)], parsed) == ["it would read `ok`, which nothing in the file defines"]
    assert "it would read `undefined_name`, which nothing in the file defines" in _problems(
        "import torch\nx = torch.cuda\n", [("torch", "undefined_name", 1)], parsed
    )
    keys = 'table = {"cuda": 1}\nvalue = table["cuda"]\n'
    assert "the key" in _problems(keys, [("cuda", "npu", 0)], parsed)[0]
    assert _problems(keys, [("cuda", "npu", 0), ("cuda", "npu", 1)], parsed) == []
    twice = "a = 1\nb = 2\nprint(a, b)\n"
    assert "defined a second time" in _problems(twice, [("b", "a", 0), ("b", "a", 1)], parsed)[0]
    # an import the rewrite leaves unused stays, and is no problem: the program still runs
    unused = "import torch\nimport torch_npu\nx = torch.cuda.synchronize\n"
    assert _problems(unused, [("torch.cuda", "torch_npu.npu", 0)], parsed) == []


def test_a_rewrite_that_breaks_the_syntax_is_a_problem_on_the_parsed_result() -> None:
    assert "no longer parse" in _problems("x = cuda_flag\n", [("cuda_flag", "if", 0)], parsed=True)[0]


def test_c_names_the_file_defines_are_judged_on_the_parsed_result() -> None:
    parser = Parser(CUDA_LANGUAGE)
    source = b"#define cudaCheckX(x) (x)\nint f() { return cudaCheckX(1); }\n"
    start = source.index(b"cudaCheckX(1)")
    edits = [Edit(start, start + len("cudaCheckX"), "hipCheckX")]
    from cudaport.model.source import apply_edits

    after = apply_edits(source, edits)
    verdict = consistency.judge(
        CNames(parser), parser.parse, source, parser.parse(source), edits, after, parser.parse(after)
    )
    assert "`cudaCheckX` would still be read but no longer defined" not in " ".join(p.reason for p in verdict.problems)
    assert "`hipCheckX`" not in " ".join(p.reason for p in verdict.problems)  # a name from a header: fine
    # the definition renamed but not its use
    definition = source.index(b"cudaCheckX")
    edits = [Edit(definition, definition + len("cudaCheckX"), "hipCheckX")]
    after = apply_edits(source, edits)
    verdict = consistency.judge(
        CNames(parser), parser.parse, source, parser.parse(source), edits, after, parser.parse(after)
    )
    assert "`cudaCheckX` would still be read but no longer defined" in verdict.problems[0].reason


def test_the_engine_withholds_a_fix_whose_result_fails_and_says_why() -> None:
    """Engine.finalize (every whole-file check): the analyzer's fix renames only the definition."""
    engine = Engine(Settings(target="npu"))
    data = LOADER.encode()
    tree = engine.analyzer("python").parse(data)
    start = data.index(b"is_cuda")
    fix = Fix("rename", (Edit(start, start + 7, "is_npu"),), Applicability.SAFE)
    finding = Finding(
        "CP7011", start, start + 7, Difficulty.MECHANICAL, "`.is_cuda` -> `.is_npu`", ".is_cuda", ".is_npu", fix
    )
    [judged] = engine.finalize([finding], data, tree, "python")
    assert judged.fix is None and judged.difficulty is Difficulty.MANUAL
    assert "not rewritten automatically: `self.is_cuda` would still be read" in judged.message
    assert judged.data["withheld"].startswith("`self.is_cuda`")


def test_the_fixed_fixture_files_still_compile(cli: Cli, tree: Path) -> None:
    cli("fix", ".", "--target", "npu", "--fail-on", "never", cwd=tree)
    ast.parse((tree / "two_device_loader.py").read_text())
