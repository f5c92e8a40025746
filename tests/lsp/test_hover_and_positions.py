"""Hover, and positions in each negotiated encoding on lines with Chinese comments, Chinese identifiers and emoji."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from cudaport.knowledge.ruleset import load_ruleset

from .conftest import CUDAPORT, Launcher, Session, copy_data, position_of

FAST = {"debounce": 20}
# One line, many widths: CJK is 3 bytes / 1 UTF-16 unit, the emoji 4 bytes / 2 units.
WIDE = (
    "#include <cuda_runtime.h>\n"
    "void f(float* 数据, int n) {\n"
    "  /* 分配显存 😀 */ cudaMalloc(&数据, n); int 计数 = 0; cudaFree(数据); // 释放 🚀 cudaFree\n"
    '  const char* s = "😀 cudaMemcpy"; cudaDeviceSynchronize();\n'
    "}\n"
)


def capabilities_offering(*encodings: str) -> types.ClientCapabilities:
    capabilities = client_capabilities("visual_studio_code")
    capabilities.general = types.GeneralClientCapabilities(position_encodings=list(encodings))
    return capabilities


@pytest.mark.parametrize(
    ("offered", "negotiated"),
    [
        ((), "utf-16"),  # VS Code 1.65 offers nothing: UTF-16
        (("utf-16",), "utf-16"),
        (("utf-32", "utf-16"), "utf-16"),
        (("utf-16", "utf-8"), "utf-8"),  # UTF-8 whenever it is offered
        (("utf-32", "utf-8", "utf-16"), "utf-8"),
    ],
)
async def test_encoding_negotiation_and_columns(
    lsp: Launcher, tmp_path: Path, offered: tuple[str, ...], negotiated: str
) -> None:
    capabilities = capabilities_offering(*offered) if offered else client_capabilities("visual_studio_code")
    session = await lsp.start(capabilities=capabilities, options=FAST)
    assert session.encoding == negotiated
    path = tmp_path / "wide.cu"
    path.write_text(WIDE, encoding="utf-8")
    uri = session.open(path)
    diagnostics = await session.diagnostics(uri)
    found = {(d.range.start.line, d.range.start.character, d.range.end.character) for d in diagnostics}
    expected = set()
    for needle, occurrence in (("cudaMalloc", 0), ("cudaFree", 0), ("cudaDeviceSynchronize", 0)):
        line, column = position_of(WIDE, needle, negotiated, occurrence)
        expected.add((line, column, column + len(needle)))
    line, column = position_of(WIDE, "cuda_runtime.h", negotiated)
    expected.add((line, column, column + len("cuda_runtime.h")))
    assert found == expected  # and nothing in the comment or the string


async def test_edits_after_wide_characters_land_where_the_editor_put_them(lsp: Launcher, tmp_path: Path) -> None:
    for capabilities in (client_capabilities("visual_studio_code"), client_capabilities("neovim")):
        session = await lsp.start(capabilities=capabilities, options=FAST)
        path = tmp_path / f"edit-{session.encoding}.cu"
        path.write_text(WIDE, encoding="utf-8")
        uri = session.open(path)
        await session.diagnostics(uri)
        # Rename the second call by typing over `Free` after the emoji and CJK on the line: cudaFree -> cudaMalloc.
        line, column = position_of(session.texts[uri], "Free(数据)", session.encoding)
        session.edit(uri, (line, column), (line, column + 4), "Malloc")
        # Insert an emoji before the first call: everything after it moves by its width in this encoding.
        first_line, first_column = position_of(session.texts[uri], "cudaMalloc", session.encoding)
        session.edit(uri, (first_line, first_column), (first_line, first_column), "🎉")
        diagnostics = await session.diagnostics(uri)
        text = session.texts[uri]
        assert "🎉cudaMalloc(&数据, n); int 计数 = 0; cudaMalloc(数据);" in text
        symbols = sorted(
            (d.range.start.line, d.range.start.character, d.data["symbol"])
            for d in diagnostics
            if d.range.start.line == first_line
        )
        assert symbols == [
            (*position_of(text, "cudaMalloc", session.encoding, 0), "cudaMalloc"),
            (*position_of(text, "cudaMalloc", session.encoding, 1), "cudaMalloc"),
        ]


async def test_hover_shows_every_target_and_why(lsp: Launcher, profile: str, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(profile, options=FAST)
    uri = session.open(path)
    await session.diagnostics(uri)
    line, column = position_of(session.texts[uri], "cudaMalloc(&in", session.encoding)
    hover = await session.client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, column + 3))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    text = hover.contents.value
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert "`cudaMalloc`" in text and "CP1001" in text
    ruleset = load_ruleset()
    for name, target in ruleset.targets.items():
        assert target.label in text, f"no row for target {name}"
    assert "**HIP** (configured)" in text and "`hipMalloc`" in text and "mechanical" in text
    assert "**Why:**" in text and "runtime is HIP" in text
    assert hover.range == types.Range(types.Position(line, column), types.Position(line, column + len("cudaMalloc")))


async def test_hover_explains_dual_stack_and_rule_level_findings(lsp: Launcher, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(options=FAST)
    uri = session.open(path)
    await session.diagnostics(uri)

    async def hover_at(needle: str, occurrence: int = 0) -> str:
        line, column = position_of(session.texts[uri], needle, session.encoding, occurrence)
        result = await session.client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, column + 1))
        )
        assert result is not None and isinstance(result.contents, types.MarkupContent)
        return result.contents.value

    assert "already dual-stack" in await hover_at("cudaStream_t", 0)
    assert "**HIP: portable**" in await hover_at("cudaStream_t", 0)
    warp = await hover_at("tid % 32")
    assert "CP2005" in warp and "**HIP: manual**" in warp
    # Not code: a name in a comment or a string has no hover; nor does a user's own identifier.
    for needle in ("cublasSgemm 在注释里", "cudaMalloc in a string", "cudaHelperInit"):
        line, column = position_of(session.texts[uri], needle, session.encoding)
        result = await session.client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, column + 1))
        )
        assert result is None, needle


async def test_hover_on_a_suppressed_name_still_explains_it(lsp: Launcher, tmp_path: Path) -> None:
    path = tmp_path / "s.cu"
    path.write_text("void f(float* p) { cudaFree(p); }  // cudaport: ignore[CP1001]\n", encoding="utf-8")
    capabilities = client_capabilities("visual_studio_code")
    assert capabilities.text_document is not None
    capabilities.text_document.hover = types.HoverClientCapabilities(content_format=[types.MarkupKind.PlainText])
    session = await lsp.start(capabilities=capabilities, options=FAST)
    uri = session.open(path)
    assert await session.diagnostics(uri) == []
    result = await session.client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(0, 22))
    )
    assert result is not None and isinstance(result.contents, types.MarkupContent)
    assert result.contents.kind == types.MarkupKind.PlainText
    assert "cudaFree" in result.contents.value and "hipFree" in result.contents.value
    assert "**" not in result.contents.value


def _rows(markdown: str) -> dict[str, tuple[str, str]]:
    """The hover table: target label -> (counterpart, difficulty)."""
    rows = {}
    for line in markdown.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] not in ("target", "---"):
            rows[cells[0].replace("**", "").replace(" (configured)", "")] = (cells[1], cells[2])
    return rows


async def _hover_text(session: Session, uri: str, needle: str, into: int = 1) -> str:
    line, column = position_of(session.texts[uri], needle, session.encoding)
    result = await session.client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, column + into))
    )
    assert result is not None and isinstance(result.contents, types.MarkupContent), needle
    return result.contents.value


def _cli_ratings(path: Path, target: str) -> dict[tuple[int, int, str], tuple[str, str | None]]:
    """(line, column, rule) -> (difficulty, replacement) as `cudaport check --format json` rates the file."""
    done = subprocess.run(
        [CUDAPORT, "check", "--format", "json", "--exit-zero", "--target", target, str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return {
        (d["line"], d["column"], d["rule"]): (d["difficulty"], d["replacement"])
        for d in json.loads(done.stdout)["diagnostics"]
    }


PYTHON_API = "import torch\n\ntorch.cuda.set_device(0)\nx = torch.ones(2, device='cuda')\n"
LAUNCH = "__global__ void scale(float* p) { p[0] *= 2; }\nvoid run(float* p) {\n  scale<<<1, 32>>>(p);\n}\n"


@pytest.mark.parametrize("configured", ["hip", "npu"])
async def test_hover_rates_a_python_api_and_a_launch_on_every_target_as_the_cli_does(
    lsp: Launcher, tmp_path: Path, configured: str
) -> None:
    """The table's difficulty for each target is what `cudaport check --target T` says of the same construct (it
    said "manual" on every target for Python APIs and launches, whatever the CLI said)."""
    python_file = tmp_path / "train.py"
    python_file.write_text(PYTHON_API, encoding="utf-8")
    cuda_file = tmp_path / "launch.cu"
    cuda_file.write_text(LAUNCH, encoding="utf-8")
    session = await lsp.start(options={**FAST, "target": configured})
    ruleset = load_ruleset()
    cases = [
        (python_file, "python", "torch.cuda.set_device", "CP7001", (3, 1)),
        (cuda_file, "cuda-cpp", "scale<<<", "CP1031", (3, 3)),
    ]
    for path, language, needle, rule, place in cases:
        uri = session.open(path, language_id=language)
        await session.diagnostics(uri)
        text = await _hover_text(session, uri, needle)
        rows = _rows(text)
        assert set(rows) == {t.label for t in ruleset.targets.values()}, text
        for name, target in ruleset.targets.items():
            difficulty, replacement = _cli_ratings(path, name)[(*place, rule)]
            assert rows[target.label][1] == difficulty, (needle, name, text)
            if replacement:
                assert rows[target.label][0] == f"`{replacement}`", (needle, name, text)
        configured_label = ruleset.targets[configured].label
        assert f"**{configured_label}** (configured)" in text
    # The facts the issue named, spelled out.
    python_uri = python_file.as_uri()
    rows = _rows(await _hover_text(session, python_uri, "torch.cuda.set_device"))
    assert rows["Ascend NPU"] == ("`torch.npu.set_device`", "mechanical")
    assert rows["HIP"][1] == "portable"
    rows = _rows(await _hover_text(session, cuda_file.as_uri(), "scale<<<"))
    assert rows["HIP"] == ("as it is", "portable")
    assert rows["Ascend NPU"][1] == "blocker" and "Ascend C launch" in rows["Ascend NPU"][0]


async def test_hover_names_the_plugin_release_an_operator_is_missing_from(lsp: Launcher, tmp_path: Path) -> None:
    path = tmp_path / "stats.py"
    path.write_text("import torch\n\ndef f(x):\n    return torch.lgamma(x)\n", encoding="utf-8")
    session = await lsp.start(options={**FAST, "target": "mlu"})
    uri = session.open(path, language_id="python")
    diagnostics = await session.diagnostics(uri)
    [squiggle] = [d for d in diagnostics if d.code == "CP7100"]
    assert squiggle.severity == types.DiagnosticSeverity.Warning  # manual
    text = await _hover_text(session, uri, "torch.lgamma")
    assert "`torch.lgamma`: no Cambricon MLU kernel in torch_mlu 1.25.0 (aten::lgamma)" in text
    rows = _rows(text)
    assert rows["Ascend NPU"][1] == "manual"
    assert rows["Moore Threads MUSA"][1] == "nothing to port"  # torch_musa has a kernel for it
    assert rows["HIP"][1] == "nothing to port"  # PyTorch for ROCm is built from PyTorch's CUDA kernels
