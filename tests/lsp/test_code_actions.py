"""Quick fixes, fix-all and suppression comments: the edits are minimal, name the document version, and applying
them in the editor gives what `cudaport fix` gives."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from lsprotocol import types

from .conftest import CUDAPORT, Launcher, Session, copy_data, position_of

FAST = {"debounce": 20}
FIX_ALL = "source.fixAll.cudaport"


def fixed_by_cli(path: Path, tmp_path: Path) -> str:
    copy = tmp_path / "cli" / path.name
    copy.parent.mkdir(exist_ok=True)
    shutil.copy(path, copy)
    subprocess.run([CUDAPORT, "fix", str(copy), "--fail-on", "never"], check=True, capture_output=True)
    return copy.read_text(encoding="utf-8")


def edits_of(session: Session, uri: str, edit: types.WorkspaceEdit | None) -> list[types.TextEdit]:
    assert edit is not None
    if edit.document_changes:
        change = edit.document_changes[0]
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.version == session.versions[uri]
        return [e for e in change.edits if isinstance(e, types.TextEdit)]
    assert edit.changes is not None
    return list(edit.changes[uri])


async def test_preferred_quick_fix_is_a_minimal_versioned_edit(lsp: Launcher, profile: str, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(profile, options=FAST)
    uri = session.open(path)
    await session.diagnostics(uri)
    line, column = position_of(session.texts[uri], "cudaMalloc(&in", session.encoding)
    actions = await session.code_actions(uri, (line, column + 2))
    fixes = [a for a in actions if a.is_preferred]
    assert [a.title for a in fixes] == ["Replace `cudaMalloc` with `hipMalloc`"]
    fix = fixes[0]
    assert fix.kind == types.CodeActionKind.QuickFix
    assert fix.diagnostics and fix.diagnostics[0].code == "CP1001"
    edits = edits_of(session, uri, fix.edit)
    # Only "cuda" becomes "hip": the rest of the name is not touched.
    assert [(e.range.start.line, e.range.start.character, e.range.end.character, e.new_text) for e in edits] == [
        (line, column, column + 4, "hip")
    ]
    assert session.profile != "visual_studio_code" or (fix.edit is not None and fix.edit.document_changes)
    text = session.apply(uri, fix.edit)
    assert "CUDA_CHECK(hipMalloc(&in, n * sizeof(float)));" in text
    remaining = await session.diagnostics(uri)
    assert not [d for d in remaining if d.range.start.line == line and "cudaMalloc" in d.message]


async def test_unsafe_fixes_are_offered_but_not_preferred(lsp: Launcher, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(options=FAST)
    uri = session.open(path)
    await session.diagnostics(uri)
    line, column = position_of(session.texts[uri], "asm volatile", session.encoding)
    actions = await session.code_actions(uri, (line, column))
    asm = [a for a in actions if "asm" in a.title]
    assert asm and not asm[0].is_preferred and "unsafe" in asm[0].title
    text = session.apply(uri, asm[0].edit)
    assert "lane = __lane_id()" in text


async def test_fix_all_matches_the_cli(lsp: Launcher, profile: str, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(profile, options=FAST)
    uri = session.open(path)
    await session.diagnostics(uri)
    actions = await session.code_actions(uri, (0, 0), only=["source.fixAll"])
    assert [a.kind for a in actions] == [FIX_ALL]
    action = actions[0]
    lazy = profile in ("visual_studio_code", "neovim")  # they resolve edits on demand; Emacs cannot
    assert (action.edit is None) == lazy
    resolved = await session.resolve(action)
    edits = edits_of(session, uri, resolved.edit)
    assert all(e.range.start.line == e.range.end.line for e in edits), "renames touch single lines"
    text = session.apply(uri, resolved.edit)
    assert text == fixed_by_cli(path, tmp_path)
    # What is left is for a person: no safe fix remains, so no fix-all either.
    await session.diagnostics(uri)
    assert await session.code_actions(uri, (0, 0), only=[FIX_ALL]) == []


async def test_context_only_filters_by_kind(lsp: Launcher, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(options=FAST)
    uri = session.open(path)
    await session.diagnostics(uri)
    line, column = position_of(session.texts[uri], "cudaFree(in)", session.encoding)
    everything = await session.code_actions(uri, (line, column))
    assert {a.kind for a in everything} == {types.CodeActionKind.QuickFix, FIX_ALL}
    assert {a.kind for a in await session.code_actions(uri, (line, column), only=["quickfix"])} == {"quickfix"}
    assert {a.kind for a in await session.code_actions(uri, (line, column), only=["source"])} == {FIX_ALL}
    assert await session.code_actions(uri, (line, column), only=["refactor"]) == []


async def test_ignore_on_this_line(lsp: Launcher, profile: str, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(profile, options=FAST)
    uri = session.open(path)
    await session.diagnostics(uri)
    cases = [
        # plain code line: the comment goes at its end
        ("cudaThreadSynchronize();", "  cudaThreadSynchronize();  // cudaport: ignore[CP1001]"),
        # a line ending with a comment of its own: the directive goes in front of it
        ("tid % 32;", "  int lane = tid % 32;  // cudaport: ignore[CP2005] // 车道号"),
        # a macro body line continued with a backslash: a block comment, before the backslash
        ("cudaGetErrorString(err_));", None),
    ]
    for needle, expected in cases:
        line, column = position_of(session.texts[uri], needle, session.encoding)
        actions = await session.code_actions(uri, (line, column))
        code = next(a for a in actions if a.is_preferred is not True and "on this line" in a.title)
        assert code.title.startswith("Ignore CP")
        rule = code.title.split()[1]
        text = session.apply(uri, code.edit)
        changed = text.split("\n")[line]
        if expected is not None:
            assert changed == expected
        else:
            assert f"/* cudaport: ignore[{rule}] */ \\" in changed
        left = await session.diagnostics(uri)
        assert not [d for d in left if d.range.start.line == line and d.code == rule], changed
    # The suppressed file is what `cudaport check` reads the same way.
    path.write_text(session.texts[uri], encoding="utf-8")
    checked = subprocess.run(
        [CUDAPORT, "check", str(path), "--show-portable", "--exit-zero"], capture_output=True, text=True
    )
    assert "cudaThreadSynchronize" not in checked.stdout


async def test_ignore_adds_to_an_existing_directive_and_in_the_whole_file(lsp: Launcher, tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    path.write_text(
        "#include <cuda_runtime.h>\nvoid f(float* p) { cudaMemset(p, 0, 4); cudaFree(p); }  // cudaport: ignore[CP9]\n",
        encoding="utf-8",
    )
    session = await lsp.start(options=FAST)
    uri = session.open(path)
    await session.diagnostics(uri)
    line, column = position_of(session.texts[uri], "cudaFree", session.encoding)
    actions = await session.code_actions(uri, (line, column))
    line_action = next(a for a in actions if a.title == "Ignore CP1001 on this line")
    text = session.apply(uri, line_action.edit)
    assert text.split("\n")[1].endswith("// cudaport: ignore[CP9, CP1001]")
    assert [d.code for d in await session.diagnostics(uri)] == ["CP1001"]  # only the header is left
    actions = await session.code_actions(uri, (0, 12))
    file_action = next(a for a in actions if a.title == "Ignore CP1001 in this file")
    text = session.apply(uri, file_action.edit)
    assert text.startswith("// cudaport: ignore-file[CP1001]\n#include <cuda_runtime.h>")
    assert await session.diagnostics(uri) == []


async def test_python_suppression(lsp: Launcher, tmp_path: Path) -> None:
    """The `#` comment form in Python."""
    path = tmp_path / "train.py"
    path.write_text("import torch\n\ndef sync():\n    torch.cuda.synchronize()  # wait for the GPU\n", encoding="utf-8")
    session = await lsp.start(options={**FAST, "showPortable": True})
    uri = session.open(path, language_id="python")
    diagnostics = await session.diagnostics(uri)
    on_line = [d for d in diagnostics if d.range.start.line == 3]
    assert on_line
    actions = await session.code_actions(uri, (3, 10))
    ignore = next(a for a in actions if "on this line" in a.title)
    text = session.apply(uri, ignore.edit)
    assert "torch.cuda.synchronize()  # cudaport: ignore[" in text and text.rstrip().endswith("# wait for the GPU")
    assert not [d for d in await session.diagnostics(uri) if d.range.start.line == 3]


async def test_windows_line_endings_are_kept(lsp: Launcher, tmp_path: Path) -> None:
    path = tmp_path / "crlf.cu"
    text = "#include <cuda_runtime.h>\r\nvoid f(float* p) {\r\n  cudaFree(p);  // 释放\r\n}\r\n"
    path.write_bytes(text.encode())
    session = await lsp.start("emacs", options=FAST)
    uri = session.open(path, text)
    diagnostics = await session.diagnostics(uri)
    assert [(d.range.start.line, d.range.start.character) for d in diagnostics] == [(0, 10), (2, 2)]
    actions = await session.code_actions(uri, (2, 4))
    ignored = session.apply(uri, next(a for a in actions if a.title == "Ignore CP1001 on this line").edit)
    assert ignored.split("\r\n")[2] == "  cudaFree(p);  // cudaport: ignore[CP1001] // 释放"
    header = await session.code_actions(uri, (0, 12))
    fixed = session.apply(uri, next(a for a in header if a.is_preferred).edit)
    assert fixed == ignored.replace("cuda_runtime.h", "hip/hip_runtime.h")
    assert fixed.count("\r\n") == 4 and "\n" not in fixed.replace("\r\n", "")
    file_wide = await session.code_actions(uri, (2, 4))
    assert not file_wide, "nothing left to fix or ignore on that line"


COPIES = """#include <cuda_runtime.h>
void upload(float* device, const float* host, size_t bytes, cudaStream_t stream) {
  cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice);
  cudaMemcpyAsync(device, host, bytes,
                  cudaMemcpyHostToDevice, stream);
}
"""


async def test_a_whole_call_rewrite_is_titled_with_what_it_writes(lsp: Launcher, tmp_path: Path) -> None:
    """On npu `cudaMemcpy` becomes a call with other arguments: its quick fix writes the whole call with its
    arguments ported (the copy direction too, also on a call over two lines), and its title says exactly that (it
    showed, and wrote, the CUDA copy-direction constant, which only a second fix renamed)."""
    path = tmp_path / "copies.cu"
    path.write_text(COPIES, encoding="utf-8")
    session = await lsp.start(options={**FAST, "target": "npu"})
    uri = session.open(path)
    await session.diagnostics(uri)
    expected = {
        "cudaMemcpy(": "aclrtMemcpy(device, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE)",
        "cudaMemcpyAsync(": "aclrtMemcpyAsync(device, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream)",
    }
    for needle, written in expected.items():
        line, column = position_of(session.texts[uri], needle, session.encoding)
        actions = await session.code_actions(uri, (line, column + 2))
        rewrite = next(a for a in actions if a.title.startswith("Rewrite as"))
        assert rewrite.title.startswith(f"Rewrite as `{written}`"), rewrite.title
        assert rewrite.is_preferred
        text = session.apply(uri, rewrite.edit)
        assert written + ";" in text, text
        await session.diagnostics(uri)
    assert "cudaMemcpy" not in session.texts[uri]
    # `cudaport fix` writes the same calls.
    copy = tmp_path / "cli" / path.name
    copy.parent.mkdir()
    copy.write_text(COPIES, encoding="utf-8")
    subprocess.run([CUDAPORT, "fix", "--target", "npu", "--fail-on", "never", str(copy)], check=True)
    for written in expected.values():
        assert written in copy.read_text(encoding="utf-8")


def _header_edit(edit: types.WorkspaceEdit | None, name: str) -> tuple[bool, list[types.TextEdit]]:
    """(whether the edit creates the file, its text edits) for the generated file `name` in a workspace edit."""
    assert edit is not None and edit.document_changes is not None
    created = any(isinstance(c, types.CreateFile) and c.uri.endswith("/" + name) for c in edit.document_changes)
    edits = [
        e
        for c in edit.document_changes
        if isinstance(c, types.TextDocumentEdit) and c.text_document.uri.endswith("/" + name)
        for e in c.edits
        if isinstance(e, types.TextEdit)
    ]
    return created, edits


async def test_dual_stack_action_beside_the_rename(lsp: Launcher, tmp_path: Path) -> None:
    """Each rename has a second action that keeps the CUDA name and maps it in the portability header: the
    header is created with the first one and extended by the next; the include becomes the header's."""
    path = copy_data("reduce.cu", tmp_path)
    header = tmp_path / "cudaport_compat.h"
    session = await lsp.start("visual_studio_code", options=FAST)
    uri = session.open(path)
    await session.diagnostics(uri)
    line, column = position_of(session.texts[uri], "cudaFree(in)", session.encoding)
    actions = await session.code_actions(uri, (line, column))
    titles = [a.title for a in actions]
    assert "Replace `cudaFree` with `hipFree`" in titles
    dual = next(a for a in actions if "dual-stack" in a.title)
    assert dual.title == "Keep `cudaFree`: map it to `hipFree` in cudaport_compat.h (dual-stack)"
    assert not dual.is_preferred
    created, edits = _header_edit(dual.edit, "cudaport_compat.h")
    assert created and len(edits) == 1
    text = edits[0].new_text
    assert "#define cudaFree hipFree\n" in text and "#include <hip/hip_runtime.h>" in text
    assert edits_of(session, uri, types.WorkspaceEdit(document_changes=[dual.edit.document_changes[-1]])) == []
    header.write_text(text, encoding="utf-8")  # what the editor does with the CreateFile and its text

    # the next name extends the header on disk, without touching what is there
    line, column = position_of(session.texts[uri], "cudaMalloc(&in", session.encoding)
    dual = next(a for a in await session.code_actions(uri, (line, column)) if "dual-stack" in a.title)
    created, edits = _header_edit(dual.edit, "cudaport_compat.h")
    assert not created and [e.new_text for e in edits] == ["#define cudaMalloc hipMalloc\n"]

    # the include becomes the portability header's; the CUDA names in the file stay
    line, column = position_of(session.texts[uri], "cuda_runtime.h", session.encoding)
    dual = next(a for a in await session.code_actions(uri, (line, column)) if "dual-stack" in a.title)
    assert dual.title == "Include cudaport_compat.h instead of `cuda_runtime.h` (dual-stack)"
    document_edit = types.WorkspaceEdit(document_changes=[dual.edit.document_changes[-1]])
    changed = session.apply(uri, document_edit)
    assert '#include "cudaport_compat.h"\n#include <cstdio>\n#include <cublas_v2.h>' in changed
    assert "CUDA_CHECK(cudaMalloc(&in" in changed


async def test_no_dual_stack_action_where_the_editor_cannot_create_the_header(lsp: Launcher, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start("neovim", options=FAST)  # no documentChanges: no CreateFile
    uri = session.open(path)
    await session.diagnostics(uri)
    line, column = position_of(session.texts[uri], "cudaFree(in)", session.encoding)
    actions = await session.code_actions(uri, (line, column))
    assert "Replace `cudaFree` with `hipFree`" in [a.title for a in actions]
    assert not [a for a in actions if "dual-stack" in a.title]


async def test_a_quick_fix_that_breaks_the_program_alone_is_not_offered(lsp: Launcher, tmp_path: Path) -> None:
    """The variable is set on one line and read on the next: renaming one of them alone would read a key nothing
    sets. Each quick fix is checked whole, as `cudaport fix` checks its result; fix-all renames both."""
    path = tmp_path / "launch.py"
    path.write_text(
        'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "0"\nprint(os.environ.get("CUDA_VISIBLE_DEVICES"))\n'
    )
    session = await lsp.start(options={**FAST, "target": "npu"})
    uri = session.open(path)
    assert len(await session.diagnostics(uri)) == 2
    actions = await session.code_actions(uri, (1, 14))
    assert not [a for a in actions if a.title.startswith("Replace")]
    assert any(a.title.startswith("Ignore CP7030") for a in actions)  # suppressing it is still offered
    [fix_all] = await session.code_actions(uri, (0, 0), only=[FIX_ALL])
    text = session.apply(uri, (await session.resolve(fix_all)).edit)
    assert text.count("ASCEND_RT_VISIBLE_DEVICES") == 2 and "CUDA_VISIBLE_DEVICES" not in text
