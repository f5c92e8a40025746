"""Finding messages in Chinese: every message, fix title and note a finding carries is written in the active
language when the analysis runs, with its placeholders filled, and nothing of the English sentences is left; the
English messages of the same analysis are unchanged.

Through the engine on every fixture kind and target, through `cudaport check` (in-process, the language chosen as
the front ends choose it: `i18n.set_language` before the analysis), and through an editing session."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import REPO, Cli
from cudaport import i18n
from cudaport.engine.engine import Engine
from cudaport.engine.session import Session
from cudaport.knowledge.ruleset import load_ruleset
from cudaport.model.findings import Finding
from cudaport.project.config import Settings
from cudaport.project.files import language_for

FIXTURES = REPO / "tests" / "fixtures"
MESSAGES = FIXTURES / "messages"  # a sample in the style of the vendor SDKs' samples, written for these tests
TARGETS = sorted(load_ruleset().targets)
# Every kind of file the analyzers read, from the fixtures: C/CUDA, Python, build files, manifests, configs, notebooks.
SOURCES = [
    *sorted((FIXTURES / "c").glob("*.cu")),
    *sorted((FIXTURES / "accelerators").glob("*.c*")),
    *sorted((FIXTURES / "python").glob("*.py")),
    *sorted(p for p in (FIXTURES / "inventory").iterdir() if p.is_file()),
    *sorted(MESSAGES.iterdir()),
]

_CHINESE = re.compile(r"[\u4e00-\u9fff]")
_CODE = re.compile(r"`[^`]*`")
# Four or more plain words in a row (API names are in backticks, or joined by `_`, `.`, `(`: not plain words).
_ENGLISH_RUN = re.compile(r"(?<![\w.`/-])[A-Za-z][a-z]+(?:,? [A-Za-z][a-z]*){3,}(?![\w(`])")
_PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


def english_left(text: str) -> str | None:
    """The first run of four or more plain English words outside backticks, or None."""
    found = _ENGLISH_RUN.search(_CODE.sub(" ", text))
    return found.group(0) if found else None


def assert_chinese(text: str, what: str = "message") -> None:
    """A message a Chinese user reads: Chinese, no English sentence left outside code, no placeholder unfilled."""
    assert _CHINESE.search(text), f"{what} has no Chinese: {text!r}"
    left = english_left(text)
    assert left is None, f"{what} keeps English ({left!r}): {text!r}"
    assert not _PLACEHOLDER.search(_CODE.sub(" ", text)), f"{what} has an unfilled placeholder: {text!r}"


def test_the_checks_of_this_file_tell_english_from_chinese() -> None:
    mixed = "`cudaMalloc`: HIP has `hipMalloc`, but it needs a person to adapt"
    assert english_left(mixed) == "but it needs a person to adapt"
    assert english_left("the port needs an Ascend C kernel") == "the port needs an Ascend C kernel"
    assert english_left("CUDA 运行时函数 `cudaMalloc` 在 HIP 上对应 `hipMalloc`") is None
    assert english_left("请改用 `variable-sized object may not be initialized` 之外的写法") is None
    with pytest.raises(AssertionError, match="placeholder"):
        assert_chinese("{subject} 函数 `x`")
    with pytest.raises(AssertionError, match="keeps English"):
        assert_chinese("函数 `x`: it needs a person to adapt")


@pytest.fixture
def chinese() -> Iterator[None]:
    """The language of this process is Chinese for the test, English again after it (other tests read English)."""
    i18n.set_language(i18n.CHINESE)
    try:
        yield
    finally:
        i18n.set_language(i18n.ENGLISH)


def _findings(engine: Engine, path: Path) -> list[Finding]:
    language = language_for(path)
    assert language is not None, path
    findings, _ = engine.check_data(path.read_bytes(), language, path)
    return findings


def _texts(finding: Finding) -> Iterator[tuple[str, str]]:
    yield "message", finding.message
    for label, fix in (("fix title", finding.fix), ("dual-stack fix title", finding.dual)):
        if fix is not None:
            yield label, fix.title


@pytest.mark.parametrize("target", [*TARGETS, "hip@5.2", "npu@A2"])
def test_every_message_and_fix_title_of_the_fixtures_is_chinese(chinese: None, target: str) -> None:
    name, _, version = target.partition("@")
    engine = Engine(Settings(target=name, versions={name: version} if version else {}, root=FIXTURES))
    seen = 0
    for path in SOURCES:
        for finding in _findings(engine, path):
            for what, text in _texts(finding):
                assert_chinese(text, f"{path.name}: {finding.rule} {what}")
                seen += 1
    assert seen > 300  # every fixture kind has findings on every target


def test_english_messages_are_unchanged_by_a_chinese_run_in_the_same_process() -> None:
    """One engine (one outcome cache) through English, Chinese and English again: the English is the same both
    times, and the Chinese differs from it everywhere a message has words."""
    engine = Engine(Settings(target="npu", root=FIXTURES))
    paths = [MESSAGES / "histogram_demo.cu", MESSAGES / "train_step.py", FIXTURES / "c" / "warp_reduce.cu"]

    def messages() -> list[str]:
        return [t for p in paths for f in _findings(engine, p) for _, t in _texts(f)]

    before = messages()
    i18n.set_language(i18n.CHINESE)
    try:
        chinese = messages()
    finally:
        i18n.set_language(i18n.ENGLISH)
    after = messages()
    assert before == after
    assert len(chinese) == len(before) > 20
    assert all(c != e for c, e in zip(chinese, before, strict=True))
    assert not any(_CHINESE.search(m) for m in after)


def test_generic_templates_order_their_words_in_chinese(chinese: None) -> None:
    """The rule data's words fill a Chinese template in its own order: subject and kind before the name, the
    target in the middle, the note after a full-width semicolon; nothing English between them."""
    engine = Engine(Settings(target="hip", root=FIXTURES))
    by_symbol = {f.symbol: f for f in _findings(engine, MESSAGES / "histogram_demo.cu")}
    assert by_symbol["cudaMalloc"].message == "CUDA 运行时函数 `cudaMalloc` 在 HIP 上对应 `hipMalloc`"
    assert by_symbol["cudaMalloc"].fix is not None
    assert by_symbol["cudaMalloc"].fix.title == "将 `cudaMalloc` 替换为 `hipMalloc`"
    assert by_symbol["cudaMalloc"].dual is not None
    assert by_symbol["cudaMalloc"].dual.title == "保留 `cudaMalloc`：在 cudaport_compat.h 中映射为 `hipMalloc`（双栈）"
    npu = Engine(Settings(target="npu", root=FIXTURES))
    events = {f.symbol: f for f in _findings(npu, MESSAGES / "histogram_demo.cu")}
    assert "昇腾 NPU" in events["cudaEventCreate"].message
    musa = Engine(Settings(target="musa", root=FIXTURES))
    (warp,) = [f for f in _findings(musa, MESSAGES / "histogram_demo.cu") if "`WARP_SIZE`" in f.message]
    assert warp.message == (
        "`WARP_SIZE` 把线程束大小写死为 32；摩尔线程 MUSA 的线程束有 128 个通道"
        "（MTT S80/S3000/S4000 上如此；S5000 上为 32）（改用 warpSize）"
    )


def test_cli_check_json_carries_chinese_messages_and_english_keys(chinese: None, cli: Cli) -> None:
    """`cudaport check` as the console script runs it, the language chosen before the analysis: messages in
    Chinese, codes, difficulties and keys in English."""
    for target in ("hip", "npu", "mlu"):
        result = cli(
            "check",
            ".",
            "--target",
            target,
            "--format",
            "json",
            "--exit-zero",
            "-j",
            "1",
            "--lang",
            "zh-CN",
            cwd=MESSAGES,
        )
        assert result.code == 0, result.err
        diagnostics = result.json()["diagnostics"]
        assert {d["path"].rsplit("/", 1)[-1] for d in diagnostics} >= {
            "histogram_demo.cu",
            "train_step.py",
            "CMakeLists.txt",
            "requirements.txt",
        }
        for diagnostic in diagnostics:
            assert_chinese(diagnostic["message"], f"{diagnostic['path']}:{diagnostic['line']} {diagnostic['rule']}")
            assert re.fullmatch(r"CP\d{4}", diagnostic["rule"])
            assert diagnostic["difficulty"] in ("portable", "mechanical", "manual", "blocker")


def test_bad_input_errors_are_chinese(chinese: None, cli: Cli) -> None:
    """A broken notebook and a broken YAML file: the run says why for each, in Chinese, and goes on."""
    result = cli(
        "check", ".", "--format", "json", "--exit-zero", "-j", "1", "--lang", "zh-CN", cwd=FIXTURES / "inventory-bad"
    )
    assert result.json()["files_scanned"] == 2
    # `cudaport: <file> 出错：<why>`: the line is the CLI's, the reason after it the analyzer's
    reasons = {}
    for line in result.err.splitlines():
        for name in ("broken.ipynb", "broken.yaml"):
            if name in line:
                reasons[name] = line.split("出错：", 1)[1]
    assert set(reasons) == {"broken.ipynb", "broken.yaml"}, result.err
    for reason in reasons.values():
        assert_chinese(reason, "error")


def test_a_session_keeps_the_line_a_chinese_message_names(chinese: None) -> None:
    """An already-ported name's message names the line of the directive that selects the target (第 N 行): lines
    typed above it move the number, as a whole-file check of the same bytes says it."""
    text = (
        b"#include <cuda_runtime.h>\n#if defined(USE_ROCM)\nvoid f() { hipFree(0); }\n"
        b"#else\nvoid f() { cudaFree(0); }\n#endif\n"
    )
    engine = Engine(Settings(target="hip"))
    session = Session(engine, None, text, "c")
    session.analyse()
    (ported,) = [f for f in session.findings if f.symbol == "cudaFree"]
    assert "（第 2 行）" in ported.message
    session.edit(0, 0, "// 新增的注释\n// another line\n".encode())
    session.analyse()
    (moved,) = [f for f in session.findings if f.symbol == "cudaFree"]
    whole, _ = engine.check_data(session.data, "c", None)
    (fresh,) = [f for f in whole if f.symbol == "cudaFree"]
    assert "（第 4 行）" in moved.message
    assert moved.message == fresh.message
