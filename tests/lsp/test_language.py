"""The server's language: initialize's locale, the `lang` setting over it (initializationOptions, workspace
configuration, changed at run time), the environment when neither says; Chinese in what the server writes itself
(difficulty words, hover, code-action titles, notifications, log lines), English names in machine fields."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from lsprotocol import types

from .conftest import TIMEOUT, Launcher, Session, copy_data, position_of, wait_until

FAST = {"debounce": 20}
WORDS = {"portable": "可直接运行", "mechanical": "可机械改写", "manual": "需人工修改", "blocker": "阻断"}


def logged(session: Session) -> list[str]:
    return [m.message for m in session.client.log_messages]


async def speaks(session: Session, text: str) -> None:
    """Wait for the log line that says which language the server chose, and why."""
    await wait_until(lambda: any(text in m for m in logged(session)), what=f"the log line {text!r}")


def check_words(diagnostics: list[types.Diagnostic], language: str) -> None:
    """Each message begins with its difficulty in `language`; `data` keeps the English name for machines."""
    assert diagnostics
    for diagnostic in diagnostics:
        assert isinstance(diagnostic.data, dict)
        english = diagnostic.data["difficulty"]
        assert english in WORDS
        word = WORDS[english] if language == "zh-CN" else english
        assert diagnostic.message.startswith(f"[{word}] "), diagnostic.message


async def settled(
    session: Session, uri: str, predicate: Callable[[list[types.Diagnostic]], bool], what: str
) -> list[types.Diagnostic]:
    """The document's diagnostics once `predicate` holds (a change of language re-publishes, or asks to re-pull)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        found = await session.diagnostics(uri) if session.pull else list(session.client.diagnostics.get(uri, []))
        if found and predicate(found):
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; last: {[d.message for d in found][:3]}")
        await asyncio.sleep(0.05)


def in_chinese(diagnostics: list[types.Diagnostic]) -> bool:
    return all(d.message.startswith(tuple(f"[{w}] " for w in WORDS.values())) for d in diagnostics)


def in_english(diagnostics: list[types.Diagnostic]) -> bool:
    return all(d.message.startswith(tuple(f"[{w}] " for w in WORDS)) for d in diagnostics)


async def titles(session: Session, uri: str, needle: str) -> list[str]:
    line, column = position_of(session.texts[uri], needle, session.encoding)
    return [a.title for a in await session.code_actions(uri, (line, column + 1))]


@pytest.mark.parametrize("profile", ["visual_studio_code", "neovim"])
async def test_a_chinese_session_diagnostics_hover_and_code_actions(
    lsp: Launcher, tmp_path: Path, profile: str
) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(profile, options=FAST, locale="zh-CN")
    await speaks(session, "cudaport 使用 zh-CN：编辑器的区域设置为“zh-CN”")
    uri = session.open(path)
    diagnostics = await session.diagnostics(uri)
    check_words(diagnostics, "zh-CN")
    assert {d.code for d in diagnostics} >= {"CP1001", "CP2005"}  # the rule codes stay as they are
    assert all(d.source == "cudaport" for d in diagnostics)

    # Hover: the table's headings, the configured target's mark and the difficulty words are Chinese; API names not.
    line, column = position_of(session.texts[uri], "cudaMalloc(", session.encoding)
    hover = await session.client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, column + 2))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    text = hover.contents.value
    if hover.contents.kind == types.MarkupKind.Markdown:
        assert "| 目标平台 | 对应项 | 迁移难度 |" in text
        assert "（当前配置）" in text and "**原因：**" in text and "**修复：**" in text
    else:
        assert "原因：" in text and "修复：" in text
    assert "cudaMalloc" in text and "hipMalloc" in text
    assert any(word in text for word in WORDS.values())
    assert "| target |" not in text and "(configured)" not in text

    # Code actions: the titles cudaport writes itself.
    found = await titles(session, uri, "cudaMalloc(")
    assert any(title.startswith("在此行忽略 CP") for title in found), found
    assert any(title.startswith("在此文件中忽略 CP") for title in found), found
    assert "cudaport：应用全部安全修复" in found
    assert not any(title.startswith("Ignore ") for title in found)


async def test_the_lang_setting_overrides_the_locale(lsp: Launcher, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    english = await lsp.start(options={**FAST, "lang": "en"}, locale="zh-CN")
    await speaks(english, "cudaport speaks en: the lang setting is 'en'")
    uri = english.open(path)
    check_words(await english.diagnostics(uri), "en")
    assert "cudaport: apply all safe fixes" in await titles(english, uri, "cudaMalloc(")

    # The other way round, and through workspace/configuration (VS Code's `cudaport.lang`), with a problem
    # among the settings that is shown in the language the settings ask for.
    chinese = await lsp.start(
        locale="en-US", configuration={**FAST, "lang": "zh-CN", "showPortable": "yes"}, options={"lang": ""}
    )
    uri = chinese.open(path)
    check_words(await settled(chinese, uri, in_chinese, "Chinese diagnostics"), "zh-CN")
    await speaks(chinese, "cudaport 使用 zh-CN：lang 设置为“zh-CN”")
    await wait_until(lambda: chinese.client.messages, what="the settings problem")
    assert any("工作区设置：“showPortable”必须是 true 或 false" in m.message for m in chinese.client.messages)


@pytest.mark.parametrize("profile", ["visual_studio_code", "neovim", "emacs"])
async def test_changing_lang_at_run_time_publishes_in_the_new_language(
    lsp: Launcher, tmp_path: Path, profile: str
) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(profile, options=FAST, locale="en")
    uri = session.open(path)
    before = await session.diagnostics(uri)
    check_words(before, "en")

    async def change(lang: str) -> None:
        settings = {**FAST, "lang": lang}
        session.client.set_configuration({"cudaport": settings})  # clients that answer workspace/configuration
        session.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"cudaport": settings})  # and those that do not
        )

    await change("zh-CN")
    after = await settled(session, uri, in_chinese, "diagnostics in Chinese")
    check_words(after, "zh-CN")
    # The same findings, only their words changed.
    assert sorted((d.code, d.range.start.line) for d in after) == sorted((d.code, d.range.start.line) for d in before)
    assert any(t.startswith("在此行忽略 ") for t in await titles(session, uri, "cudaMalloc("))
    await speaks(session, "cudaport 使用 zh-CN：lang 设置为“zh-CN”")

    await change("")  # follow the editor again: its locale is English
    check_words(await settled(session, uri, in_english, "diagnostics in English again"), "en")
    assert any(t.startswith("Ignore ") for t in await titles(session, uri, "cudaMalloc("))


async def test_a_locale_cudaport_does_not_speak_is_english(lsp: Launcher, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    # The client's word stands over the environment: French is not Chinese, even where the machine's locale is.
    session = await lsp.start(options=FAST, locale="fr", env={"CUDAPORT_LANG": "zh_CN.UTF-8"})
    await speaks(session, "cudaport speaks en: the editor's locale is 'fr'")
    uri = session.open(path)
    check_words(await session.diagnostics(uri), "en")
    assert "cudaport: apply all safe fixes" in await titles(session, uri, "cudaMalloc(")

    # VS Code in Japanese sends its display language as `lang`: English, and no complaint about the setting.
    japanese = await lsp.start(options={**FAST, "lang": "ja"}, locale="ja")
    await speaks(japanese, "cudaport speaks en: the lang setting is 'ja'")
    uri = japanese.open(path)
    check_words(await japanese.diagnostics(uri), "en")
    assert not japanese.client.messages

    # Something that is no language at all is a problem with the setting, named, and ignored.
    broken = await lsp.start(options={**FAST, "lang": "中文!"}, locale="en")
    await wait_until(lambda: broken.client.messages, what="the lang problem")
    assert any("'lang' must be a language such as zh-CN or en" in m.message for m in broken.client.messages)


async def test_without_a_locale_the_environment_decides(lsp: Launcher, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(options=FAST, env={"CUDAPORT_LANG": "", "LC_ALL": "", "LANG": "zh_CN.UTF-8"})
    await speaks(session, "cudaport 使用 zh-CN（由环境变量决定）")
    uri = session.open(path)
    check_words(await session.diagnostics(uri), "zh-CN")


GBK_TEXT = "// 旧代码：先分配显存\nvoid f(float* p) { /* 显存 */ cudaMalloc(&p, 4); cudaDeviceReset(); }\n"


async def test_a_chinese_session_on_a_gbk_file_keeps_its_columns(lsp: Launcher, tmp_path: Path) -> None:
    folder = tmp_path / "legacy"
    folder.mkdir()
    path = folder / "legacy.cu"
    path.write_bytes(GBK_TEXT.encode("gbk"))
    session = await lsp.start(options=FAST, locale="zh-CN", root=folder)

    def columns(diagnostics: list[types.Diagnostic]) -> set[tuple[int, int, int]]:
        return {(d.range.start.line, d.range.start.character, d.range.end.character) for d in diagnostics}

    expected = set()
    for needle in ("cudaMalloc", "cudaDeviceReset"):
        line, column = position_of(GBK_TEXT, needle, session.encoding)
        expected.add((line, column, column + len(needle)))

    # From disk (workspace diagnostics read the GBK bytes), and as the editor sends the decoded text.
    report = await session.client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    [item] = [i for i in report.items if i.uri == path.as_uri()]
    assert isinstance(item, types.WorkspaceFullDocumentDiagnosticReport)
    assert expected <= columns(item.items)
    check_words(item.items, "zh-CN")
    uri = session.open(path, text=GBK_TEXT)
    diagnostics = await session.diagnostics(uri)
    assert expected <= columns(diagnostics)
    check_words(diagnostics, "zh-CN")

    # Migrating the workspace leaves the GBK file to `cudaport fix`, and says so in Chinese.
    session.close(uri)

    @session.client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        return types.ApplyWorkspaceEditResult(applied=False)

    result = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="cudaport.server.migrateWorkspace", arguments=[])
    )
    assert result["skipped"] == ["legacy.cu"]
    await wait_until(lambda: session.client.messages, what="the message about the GBK file")
    assert any("有 1 个非 UTF-8 文件未处理（legacy.cu）" in m.message for m in session.client.messages)
