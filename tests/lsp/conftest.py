"""End-to-end tests of `cudaport serve`: the real server process over stdio, driven by pytest-lsp's client with the
recorded capabilities of real editors (VS Code, Neovim, Emacs)."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

CUDAPORT = str(Path(sys.executable).with_name("cudaport"))
SERVER_COMMAND = [CUDAPORT, "serve", "--stdio"]
DATA = Path(__file__).resolve().parent / "data"
PROFILES = ("visual_studio_code", "neovim", "emacs")
TIMEOUT = 30.0


class Client(LanguageClient):
    """pytest-lsp's client, also keeping every publishDiagnostics (with its version) and registration."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.published: list[types.PublishDiagnosticsParams] = []
        self.registrations: list[types.Registration] = []
        self.partial_results: dict[types.ProgressToken, list[Any]] = {}
        self.refreshes = 0  # workspace/diagnostic/refresh requests from the server

    def work_done_token(self, token: str) -> str:
        """A token the client puts in a request (pytest-lsp only knows tokens the server created)."""
        self.progress_reports.setdefault(token, [])
        return token


def _publish(client: Client, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published.append(params)


def _refresh(client: Client, params: None) -> None:
    client.refreshes += 1


def _register(client: Client, params: types.RegistrationParams) -> None:
    client.registrations.extend(params.registrations)


def _progress(client: Client, params: types.ProgressParams) -> None:
    """Partial results (a value without a `kind`) go to their request's token; work-done progress to pytest-lsp."""
    value = params.value
    if isinstance(value, dict) and "kind" not in value:
        client.partial_results.setdefault(params.token, []).append(value)
        return
    DEFAULT_CLIENT_FEATURES[types.PROGRESS](client, params)


def _make_client() -> Client:
    client = Client(converter_factory=default_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _publish
    features[types.CLIENT_REGISTER_CAPABILITY] = _register
    features[types.PROGRESS] = _progress
    features[types.WORKSPACE_DIAGNOSTIC_REFRESH] = _refresh
    register_lsp_features(client, features)
    return client


async def wait_until(predicate: Callable[[], Any], timeout: float = TIMEOUT, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


class Session:
    """One server process and the documents a test opened in it."""

    def __init__(self, client: Client, profile: str, capabilities: types.ClientCapabilities) -> None:
        self.client = client
        self.profile = profile
        self.capabilities = capabilities
        self.versions: dict[str, int] = {}
        self.texts: dict[str, str] = {}
        self.encoding = "utf-16"

    @property
    def pull(self) -> bool:
        text_document = self.capabilities.text_document
        return text_document is not None and text_document.diagnostic is not None

    # ---- documents ------------------------------------------------------------------------------------------
    def open(self, path: Path, text: str | None = None, language_id: str = "cuda-cpp") -> str:
        uri = path.as_uri()
        if text is None:
            text = path.read_text(encoding="utf-8")
        self.versions[uri] = 1
        self.texts[uri] = text
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id=language_id, version=1, text=text)
            )
        )
        return uri

    def edit(self, uri: str, start: tuple[int, int], end: tuple[int, int], text: str) -> None:
        """An incremental change; positions in the negotiated encoding's units."""
        self.versions[uri] += 1
        self.texts[uri] = apply_text_edit(self.texts[uri], start, end, text, self.encoding)
        change = types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(*start), types.Position(*end)), text=text
        )
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]), [change]
            )
        )

    def replace_all(self, uri: str, text: str) -> None:
        self.versions[uri] += 1
        self.texts[uri] = text
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
                [types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def close(self, uri: str) -> None:
        self.client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))

    async def diagnostics(self, uri: str, timeout: float = TIMEOUT) -> list[types.Diagnostic]:
        """The diagnostics of the document's current version: pulled, or awaited from the server's pushes."""
        if self.pull:
            report = await self.client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri))
            )
            assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
            return list(report.items)
        version = self.versions[uri]

        def current() -> types.PublishDiagnosticsParams | None:
            for params in reversed(self.client.published):
                if params.uri == uri and params.version == version:
                    return params
            return None

        params = await wait_until(current, timeout, f"diagnostics of {uri} v{version}")
        return list(params.diagnostics)

    async def code_actions(
        self, uri: str, start: tuple[int, int], end: tuple[int, int] | None = None, only: list[str] | None = None
    ) -> list[types.CodeAction]:
        result = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri),
                range=types.Range(types.Position(*start), types.Position(*(end or start))),
                context=types.CodeActionContext(diagnostics=[], only=only),
            )
        )
        actions = [a for a in result or [] if isinstance(a, types.CodeAction)]
        return actions

    async def resolve(self, action: types.CodeAction) -> types.CodeAction:
        if action.edit is not None:
            return action
        return await self.client.code_action_resolve_async(action)

    def apply(self, uri: str, edit: types.WorkspaceEdit) -> str:
        """Apply a workspace edit to the test's copy of the text (checking the version it names), send it to the
        server as the editor would, and return the new text."""
        edits: list[types.TextEdit] = []
        if edit.document_changes:
            for change in edit.document_changes:
                assert isinstance(change, types.TextDocumentEdit)
                assert change.text_document.uri == uri
                assert change.text_document.version == self.versions[uri], "an edit for another version"
                edits.extend(e for e in change.edits if isinstance(e, types.TextEdit))
        else:
            assert edit.changes is not None
            edits.extend(edit.changes[uri])
        text = self.texts[uri]
        for text_edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
            text = apply_text_edit(
                text,
                (text_edit.range.start.line, text_edit.range.start.character),
                (text_edit.range.end.line, text_edit.range.end.character),
                text_edit.new_text,
                self.encoding,
            )
        self.replace_all(uri, text)
        return text


def apply_text_edit(text: str, start: tuple[int, int], end: tuple[int, int], new: str, encoding: str) -> str:
    return text[: offset_of(text, start, encoding)] + new + text[offset_of(text, end, encoding) :]


def offset_of(text: str, position: tuple[int, int], encoding: str) -> int:
    """Index into `text` (code points) of an LSP position in the given encoding."""
    line, column = position
    lines = text.split("\n")
    if line >= len(lines):
        return len(text)
    base = sum(len(item) + 1 for item in lines[:line])
    units = 0
    for index, char in enumerate(lines[line]):
        if units >= column:
            return base + index
        units += width(char, encoding)
    return base + len(lines[line])


def width(char: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(char.encode("utf-8"))
    if encoding == "utf-16":
        return 2 if ord(char) > 0xFFFF else 1
    return 1


def column_of(line_text: str, index: int, encoding: str) -> int:
    return sum(width(char, encoding) for char in line_text[:index])


def position_of(text: str, needle: str, encoding: str, occurrence: int = 0) -> tuple[int, int]:
    """The LSP position of the `occurrence`-th `needle` in `text`."""
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(needle, index + 1)
    line = text.count("\n", 0, index)
    line_start = text.rfind("\n", 0, index) + 1
    return line, column_of(text[line_start:], index - line_start, encoding)


class Launcher:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.sessions: list[Session] = []

    async def start(
        self,
        profile: str = "visual_studio_code",
        options: dict[str, Any] | None = None,
        configuration: dict[str, Any] | None = None,
        capabilities: types.ClientCapabilities | None = None,
        root: Path | None = None,
        locale: str | None = None,
        env: dict[str, str] | None = None,
    ) -> Session:
        """`locale`: initialize's; `env`: variables for the server process (its language when nothing else says
        one: English unless a test asks, whatever the machine's LANG)."""
        capabilities = capabilities or client_capabilities(profile)
        server_env = {**os.environ, "CUDAPORT_LANG": "en", **(env or {})}
        config = ClientServerConfig(server_command=SERVER_COMMAND, client_factory=_make_client, server_env=server_env)
        client = await config.start()
        assert isinstance(client, Client)
        if configuration is not None:
            client.set_configuration({"cudaport": configuration})
        session = Session(client, profile, capabilities)
        self.sessions.append(session)
        folder = root or self.root
        result = await asyncio.wait_for(
            client.initialize_session(
                types.InitializeParams(
                    capabilities=capabilities,
                    root_uri=folder.as_uri(),
                    workspace_folders=[types.WorkspaceFolder(uri=folder.as_uri(), name=folder.name)],
                    initialization_options=options,
                    locale=locale,
                )
            ),
            TIMEOUT,
        )
        encoding = result.capabilities.position_encoding or types.PositionEncodingKind.Utf16
        session.encoding = str(getattr(encoding, "value", encoding))
        return session

    async def close(self) -> None:
        for session in self.sessions:
            client = session.client
            try:
                await asyncio.wait_for(client.shutdown_session(), TIMEOUT)
                await asyncio.wait_for(client.stop(), TIMEOUT)
            except Exception:
                if client._server is not None and client._server.returncode is None:
                    client._server.kill()
                raise


@pytest_asyncio.fixture
async def lsp(tmp_path: Path) -> AsyncIterator[Launcher]:
    launcher = Launcher(tmp_path)
    yield launcher
    await launcher.close()


@pytest.fixture(params=PROFILES)
def profile(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def copy_data(name: str, folder: Path) -> Path:
    target = folder / name
    target.write_bytes((DATA / name).read_bytes())
    return target
