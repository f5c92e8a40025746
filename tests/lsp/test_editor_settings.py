"""The settings editors give cudaport next to ruff's: `config` (the configuration file, read by the CLI's resolver),
`extendSelect`, the code-action toggles (`fixAll`, `fixActions`, `ignoreCommentActions`) and `logFile`, through
the real server over stdio, at start-up (initializationOptions) and changed while it runs (workspace/configuration
and the change notification, as the VS Code extension sends them)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from lsprotocol import types

from .conftest import TIMEOUT, Launcher, Session, copy_data, position_of, wait_until

FAST = {"debounce": 20}
FIX_ALL = "source.fixAll.cudaport"


def codes(diagnostics: list[types.Diagnostic]) -> set[str]:
    return {str(d.code) for d in diagnostics}


def targets_of(diagnostics: list[types.Diagnostic]) -> set[str]:
    return {d.data["target"] for d in diagnostics if isinstance(d.data, dict)}


def change_settings(session: Session, settings: dict[str, Any]) -> None:
    session.client.set_configuration({"cudaport": {**FAST, **settings}})
    session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))


async def settled(session: Session, uri: str, predicate: Any, what: str) -> list[types.Diagnostic]:
    deadline = time.monotonic() + TIMEOUT
    while True:
        found = await session.diagnostics(uri) if session.pull else list(session.client.diagnostics.get(uri, []))
        if predicate(found):
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; last: {sorted(codes(found))}")
        await asyncio.sleep(0.05)


async def test_config_names_the_configuration_file_and_can_be_changed_and_cleared(
    lsp: Launcher, profile: str, tmp_path: Path
) -> None:
    """`config` replaces the nearest cudaport.toml/pyproject.toml, as `cudaport check --config` does: relative to the
    workspace folder, a pyproject.toml's [tool.cudaport] too; "" (VS Code's empty setting) goes back to the nearest."""
    (tmp_path / "cudaport.toml").write_text('target = "hip"\n')
    configs = tmp_path / "configs"
    configs.mkdir()
    (configs / "ascend.toml").write_text('target = "npu"\nignore = ["CP1010"]\n')
    (configs / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.cudaport]\ntarget = "mlu"\n')
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(profile, options={**FAST, "config": "configs/ascend.toml"})
    uri = session.open(path)
    first = await session.diagnostics(uri)
    assert targets_of(first) == {"npu"} and "CP1010" not in codes(first)
    change_settings(session, {"config": str(configs / "pyproject.toml")})
    await settled(session, uri, lambda d: d and targets_of(d) == {"mlu"}, "the pyproject.toml named by config")
    change_settings(session, {"config": ""})
    after = await settled(session, uri, lambda d: d and targets_of(d) == {"hip"}, "the nearest file again")
    assert "CP1010" in codes(after)


async def test_a_missing_configuration_file_is_named_and_the_defaults_apply(lsp: Launcher, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(options={**FAST, "configuration": "nowhere/cudaport.toml"})
    uri = session.open(path)
    assert "CP1001" in codes(await session.diagnostics(uri))
    message = await wait_until(
        lambda: next((m for m in session.client.messages if "nowhere" in m.message), None), what="the message"
    )
    assert "configuration file not found (editor setting 'config')" in message.message
    assert str(tmp_path / "nowhere" / "cudaport.toml") in message.message


async def test_extend_select_adds_to_the_configured_selection(lsp: Launcher, tmp_path: Path) -> None:
    (tmp_path / "cudaport.toml").write_text('select = ["CP1"]\n')
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(configuration={**FAST})
    uri = session.open(path)
    only_file = await settled(session, uri, lambda d: bool(d), "the file's selection")
    assert codes(only_file) and all(code.startswith("CP1") for code in codes(only_file))
    change_settings(session, {"extendSelect": ["CP3"]})
    extended = await settled(session, uri, lambda d: "CP3001" in codes(d), "CP3 selected on top of the file's CP1")
    assert codes(extended) - {"CP3001"} == codes(only_file)  # the file's selection stays, CP2 stays out
    # a prefix that names no rule is the same mistake as in the file or on the command line
    change_settings(session, {"extendSelect": ["CP9Z"]})
    message = await wait_until(
        lambda: next((m for m in session.client.messages if "CP9Z" in m.message), None), what="the bad code"
    )
    assert "extend-select" in message.message


async def _actions(session: Session, uri: str) -> tuple[list[str], list[str], list[str]]:
    """(quick-fix titles that rewrite, suppression titles, fix-all kinds) at cudaMalloc."""
    line, column = position_of(session.texts[uri], "cudaMalloc(&in", session.encoding)
    actions = await session.code_actions(uri, (line, column + 2))
    quick = [a.title for a in actions if a.kind == types.CodeActionKind.QuickFix]
    ignores = [title for title in quick if title.startswith("Ignore CP")]
    fixes = [title for title in quick if title not in ignores]
    every = await session.code_actions(uri, (0, 0), only=["source.fixAll"])
    return fixes, ignores, [str(a.kind) for a in every]


async def test_code_action_toggles(lsp: Launcher, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(options={**FAST, "fixAll": False})
    uri = session.open(path)
    await session.diagnostics(uri)
    fixes, ignores, fix_all = await _actions(session, uri)
    assert fixes[0] == "Replace `cudaMalloc` with `hipMalloc`" and any("dual-stack" in title for title in fixes)
    assert ignores == ["Ignore CP1001 on this line", "Ignore CP1001 in this file"]
    assert fix_all == [], "fixAll off: no source.fixAll.cudaport (so none on save either)"
    # as VS Code sends them: every key each time (a key left out keeps the value initializationOptions gave)
    for fix_actions, ignore_actions, fix_all_on in [
        (True, True, True),
        (False, True, True),
        (True, False, True),
        (False, False, False),
    ]:
        settings = {"fixAll": fix_all_on, "fixActions": fix_actions, "ignoreCommentActions": ignore_actions}
        expected = (fix_actions, ignore_actions, fix_all_on)
        change_settings(session, settings)

        async def now(expected: tuple[bool, bool, bool] = expected) -> bool:
            found = await _actions(session, uri)
            return tuple(bool(part) for part in found) == expected

        deadline = time.monotonic() + TIMEOUT
        while not await now():
            assert time.monotonic() < deadline, f"code actions for {settings}: {await _actions(session, uri)}"
            await asyncio.sleep(0.05)
    # the toggles change no finding
    assert "CP1001" in codes(await session.diagnostics(uri))


async def test_bad_toggle_values_are_named(lsp: Launcher, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(options={**FAST, "fixAll": "no"})
    uri = session.open(path)
    await session.diagnostics(uri)
    await wait_until(lambda: any("'fixAll' must be true or false" in m.message for m in session.client.messages))
    _, _, fix_all = await _actions(session, uri)
    assert fix_all == [FIX_ALL], "a bad value is ignored: the default (on) applies"


async def test_log_file_gets_the_log_and_follows_the_setting(lsp: Launcher, tmp_path: Path) -> None:
    first, second = tmp_path / "logs" / "first.log", tmp_path / "second.log"
    first.parent.mkdir()
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(
        options={**FAST, "logFile": "logs/first.log"}, configuration={**FAST, "logFile": "logs/first.log"}
    )
    uri = session.open(path)
    await session.diagnostics(uri)
    # From the start (initializationOptions, relative to the workspace folder), at logLevel (info: no debug records)
    await wait_until(lambda: first.is_file() and "cudaport language server for" in first.read_text(), what="first")
    session.edit(uri, (0, 0), (0, 0), "// edited\n")
    await session.diagnostics(uri)
    assert " DEBUG " not in first.read_text()
    change_settings(session, {"logFile": str(second), "logLevel": "debug"})
    session.edit(uri, (0, 0), (0, 0), "// again\n")
    await wait_until(lambda: second.is_file() and " DEBUG " in second.read_text(), what="debug records in second")
    size = first.stat().st_size
    session.edit(uri, (0, 0), (0, 0), "// and again\n")
    grown = second.stat().st_size
    await wait_until(lambda: second.stat().st_size > grown, what="the second file growing")
    assert first.stat().st_size == size, "the first file is no longer written to"
    change_settings(session, {"logFile": "", "logLevel": "debug"})
    await asyncio.sleep(0.5)
    size = second.stat().st_size
    session.edit(uri, (0, 0), (0, 0), "// once more\n")
    await session.diagnostics(uri)
    await asyncio.sleep(0.5)
    assert second.stat().st_size == size, "an empty logFile writes no file"


async def test_an_unwritable_log_file_is_reported(lsp: Launcher, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(options={**FAST, "logFile": str(tmp_path)})  # a folder
    uri = session.open(path)
    assert "CP1001" in codes(await session.diagnostics(uri))
    message = await wait_until(
        lambda: next((m for m in session.client.messages if "logFile" in m.message), None), what="the message"
    )
    assert f"cannot write to {tmp_path}" in message.message
