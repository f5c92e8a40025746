"""Configuration: initializationOptions, workspace/configuration, didChangeConfiguration, and the project's
cudaport.toml/pyproject.toml read by the same resolver as the CLI; broken configuration never stops the server."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pytest_lsp import client_capabilities

from cudaport.knowledge.ruleset import load_ruleset

from .conftest import TIMEOUT, Launcher, Session, copy_data, wait_until

FAST = {"debounce": 20}


def codes(diagnostics: list[types.Diagnostic]) -> set[str]:
    return {str(d.code) for d in diagnostics}


async def settled(
    session: Session, uri: str, predicate: Callable[[list[types.Diagnostic]], object], what: str
) -> list[types.Diagnostic]:
    """Diagnostics once `predicate` holds for them (a configuration change re-publishes, or asks to re-pull)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        found = await session.diagnostics(uri) if session.pull else list(session.client.diagnostics.get(uri, []))
        if predicate(found):
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; last: {sorted(codes(found))}")
        await asyncio.sleep(0.05)


def targets_of(diagnostics: list[types.Diagnostic]) -> set[str]:
    return {d.data["target"] for d in diagnostics if isinstance(d.data, dict)}


async def retarget(session: Session, uri: str, setting: str, expected: str, what: str) -> list[types.Diagnostic]:
    """Set `cudaport.target` as an editor does (workspace/configuration, then the change notification) and wait
    until the document's findings are `expected`'s."""
    session.client.set_configuration({"cudaport": {**FAST, "target": setting}})
    session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    return await settled(session, uri, lambda d: bool(d) and targets_of(d) == {expected}, what)


async def test_project_configuration_file_and_its_edits(lsp: Launcher, profile: str, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n\n[tool.cudaport]\nignore = ["CP1010"]\n')
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(profile, options=FAST)
    uri = session.open(path)
    assert "CP1010" not in codes(await session.diagnostics(uri))
    assert "CP1001" in codes(await session.diagnostics(uri))
    # Editing the project's configuration re-checks open documents: watched by VS Code and Emacs, polled otherwise.
    config = tmp_path / "pyproject.toml"
    config.write_text('[project]\nname = "demo"\n\n[tool.cudaport]\nignore = ["CP1001"]\n')
    os.utime(config, ns=(config.stat().st_atime_ns, config.stat().st_mtime_ns + 1_000_000_000))
    workspace = session.capabilities.workspace
    watching = workspace is not None and bool(
        workspace.did_change_watched_files and workspace.did_change_watched_files.dynamic_registration
    )
    if watching:
        # The server registers its watchers after `initialized`, not before the first diagnostics: an editor
        # reports a change only once it watches (under load the registration came after the write, and no
        # event was sent).
        await wait_until(
            lambda: any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in session.client.registrations),
            what="the server's registration for watched files",
        )
        session.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams([types.FileEvent(config.as_uri(), types.FileChangeType.Changed)])
        )
    after = await settled(
        session, uri, lambda d: "CP1010" in codes(d) and "CP1001" not in codes(d), "the new ignore list"
    )
    assert "CP2005" in codes(after)


async def test_broken_configuration_is_reported_and_defaults_apply(lsp: Launcher, profile: str, tmp_path: Path) -> None:
    (tmp_path / "cudaport.toml").write_text('target = "hip"\nignore = ["CP1001"\n')  # invalid TOML
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(profile, options=FAST)
    uri = session.open(path)
    diagnostics = await session.diagnostics(uri)
    assert "CP1001" in codes(diagnostics), "the defaults apply while the file is broken"
    await wait_until(lambda: session.client.messages, what="a message about the configuration")
    message = session.client.messages[0]
    assert message.type == types.MessageType.Error
    assert "cudaport.toml" in message.message and "invalid TOML" in message.message
    # An unknown key names the file and the key.
    (tmp_path / "cudaport.toml").write_text('tarket = "hip"\n')
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            [types.FileEvent((tmp_path / "cudaport.toml").as_uri(), types.FileChangeType.Changed)]
        )
    )
    await wait_until(
        lambda: any("unknown key 'tarket'" in m.message for m in session.client.messages), what="the unknown key"
    )
    assert "CP1001" in codes(await session.diagnostics(uri))


async def test_bad_editor_settings_are_named_and_ignored(lsp: Launcher, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(options={**FAST, "target": "ascnd", "showPortable": "yes", "colour": 1})
    uri = session.open(path)
    assert "CP1001" in codes(await session.diagnostics(uri))
    await wait_until(lambda: len(session.client.messages) >= 3, what="three problems")
    text = "\n".join(m.message for m in session.client.messages)
    assert "'showPortable' must be true or false" in text
    assert "unknown setting 'colour'" in text
    # worded as check, report and the configuration word it (tests/test_targets_named.py)
    assert "editor settings: 'target': unknown target 'ascnd'; did you mean 'npu' (ascend)?" in text


async def test_workspace_configuration_and_did_change_configuration(
    lsp: Launcher, profile: str, tmp_path: Path
) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(profile, configuration={"ignore": ["CP20"], "debounce": 20})
    uri = session.open(path)
    first = await settled(session, uri, lambda d: d and "CP2005" not in codes(d), "the pulled configuration")
    assert "CP1001" in codes(first)
    session.client.set_configuration({"cudaport": {"select": ["CP3"], "debounce": 20}})
    session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    after = await settled(session, uri, lambda d: d and codes(d) == {"CP3001"}, "only the selected rules")
    assert after


async def test_show_portable_changed_in_the_editor_takes_portable_findings_in_and_out(
    lsp: Launcher, tmp_path: Path
) -> None:
    """`cudaport.showPortable` as the VS Code extension sends it (workspace/configuration, then the change
    notification): portable findings go from the diagnostics and come back, the others stay."""
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(configuration={**FAST, "showPortable": True})
    uri = session.open(path)

    def portable(diagnostics: list[types.Diagnostic]) -> int:
        return sum(1 for d in diagnostics if isinstance(d.data, dict) and d.data.get("difficulty") == "portable")

    shown = await settled(session, uri, lambda d: portable(d) > 0, "portable findings")
    others = len(shown) - portable(shown)
    for show in (False, True):
        session.client.set_configuration({"cudaport": {**FAST, "showPortable": show}})
        session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        after = await settled(session, uri, lambda d, show=show: (portable(d) > 0) == show, f"showPortable {show}")
        assert len(after) - portable(after) == others


async def test_changing_the_target_relints_every_open_document(lsp: Launcher, tmp_path: Path) -> None:
    other = next(name for name in load_ruleset().targets if name != "hip")
    first = copy_data("reduce.cu", tmp_path)
    second = tmp_path / "host.cu"
    second.write_text("#include <cuda_runtime.h>\nvoid f(float* p) { cudaFree(p); }\n")
    session = await lsp.start(options=FAST)
    uris = [session.open(first), session.open(second)]
    for uri in uris:
        assert {d.data["target"] for d in await session.diagnostics(uri)} == {"hip"}
    session.client.set_configuration({"cudaport": {"target": other, "debounce": 20}})
    session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    for uri in uris:
        await settled(
            session, uri, lambda d: d and {x.data["target"] for x in d} == {other}, f"diagnostics for {other}"
        )


async def test_any_configuration_change_relints_every_open_document(lsp: Launcher, tmp_path: Path) -> None:
    first = copy_data("reduce.cu", tmp_path)
    second = tmp_path / "host.cu"
    second.write_text("#include <cuda_runtime.h>\nvoid f(float* p) { cudaFree(p); }\n")
    # A client that cannot answer workspace/configuration sends the settings with the notification.
    capabilities = client_capabilities("emacs")
    assert capabilities.workspace is not None
    capabilities.workspace.configuration = False
    session = await lsp.start(capabilities=capabilities, options=FAST)
    uris = [session.open(first), session.open(second)]
    for uri in uris:
        assert "CP1001" in codes(await session.diagnostics(uri))
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"cudaport": {"ignore": ["CP1001"], "debounce": 20}})
    )
    for uri in uris:
        await settled(session, uri, lambda d: "CP1001" not in codes(d), "CP1001 ignored everywhere")


async def test_an_empty_target_setting_leaves_the_projects_target(lsp: Launcher, profile: str, tmp_path: Path) -> None:
    """VS Code sends `target: ""` when the user set none: the project's cudaport.toml (npu here) must win."""
    (tmp_path / "cudaport.toml").write_text('target = "npu"\n')
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(profile, options={**FAST, "target": ""})
    uri = session.open(path)
    found = await session.diagnostics(uri)
    assert found and targets_of(found) == {"npu"}
    # a target the user did set still overrides the file, and an alias names it
    await retarget(session, uri, "ROCm", "hip", "the hip findings")
    # clearing the setting again hands the choice back to the project's file
    await retarget(session, uri, "", "npu", "the npu findings again")


async def test_a_new_project_file_decides_once_the_setting_is_cleared(lsp: Launcher, tmp_path: Path) -> None:
    """VS Code's sequence: the user clears `cudaport.target` after adding a cudaport.toml to the project."""
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start("visual_studio_code", options={**FAST, "target": "hip"}, root=tmp_path)
    uri = session.open(path)
    assert {d.data["target"] for d in await session.diagnostics(uri)} == {"hip"}
    config = tmp_path / "cudaport.toml"
    config.write_text('target = "npu"\n')
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(config.as_uri(), types.FileChangeType.Created)])
    )
    await retarget(session, uri, "", "npu", "the npu findings of the new cudaport.toml")


async def test_a_target_with_a_version_and_the_new_targets_in_the_editor(lsp: Launcher, tmp_path: Path) -> None:
    """`hip@5.2` in the editor's settings rates each API against that ROCm release; switching to `musa` (or
    `metax`, an alias) rates the same buffer for Moore Threads (or MetaX)."""
    path = tmp_path / "bf16.cu"
    path.write_text(
        "#include <cuda_runtime.h>\n#include <cuda_bf16.h>\n"
        "__global__ void k(float* x) { x[0] = __bfloat162float(__float2bfloat16(x[0])); }\n"
        "void f(float* p) { cudaMalloc(&p, 4); }\n"
    )
    session = await lsp.start(options={**FAST, "target": "hip@5.2"})
    uri = session.open(path)
    found = {d.data["symbol"]: d for d in await session.diagnostics(uri) if isinstance(d.data, dict)}
    old = found["__float2bfloat16"]
    assert old.data["difficulty"] == "manual" and "needs ROCm ≥ 5.7" in old.message
    for target, alias, malloc in (("musa", "moorethreads", "musaMalloc"), ("maca", "metax", "mcMalloc")):
        diagnostics = await retarget(session, uri, alias, target, f"the {target} findings")
        by_symbol = {d.data["symbol"]: d for d in diagnostics if isinstance(d.data, dict)}
        assert by_symbol["cudaMalloc"].data["replacement"] == malloc
