"""Registering a feature module's bound methods as pygls handlers (pygls marks the handler function itself with
attributes, which a bound method does not allow)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from pygls.lsp.server import LanguageServer


def register(server: LanguageServer, method: str, handler: Callable[..., Any], options: Any | None = None) -> None:
    if inspect.iscoroutinefunction(handler):

        async def call_async(params: Any) -> Any:
            return await handler(params)

        server.feature(method, options)(call_async)
    else:

        def call(params: Any) -> Any:
            return handler(params)

        server.feature(method, options)(call)


def register_command(server: LanguageServer, name: str, handler: Callable[[], Any]) -> None:
    """A `workspace/executeCommand` command; the arguments an editor sends are accepted and not used."""
    if inspect.iscoroutinefunction(handler):

        async def run_async(*arguments: Any) -> Any:
            return await handler()

        server.command(name)(run_async)
    else:

        def run(*arguments: Any) -> Any:
            return handler()

        server.command(name)(run)
