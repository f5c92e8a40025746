"""`tomllib` on Python 3.11+, `tomli` before, imported on first use: a run whose rule data comes from the cache and
whose project has no configuration file reads no TOML, and the parser's import (its regular expressions, datetime)
is a sizeable part of a one-file check."""

from __future__ import annotations

import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from tomllib import TOMLDecodeError
    else:  # pragma: no cover - exercised on 3.10 only
        from tomli import TOMLDecodeError


def _parser() -> ModuleType:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    module: ModuleType = tomllib
    return module


def loads(text: str) -> dict[str, Any]:
    result: dict[str, Any] = _parser().loads(text)
    return result


def __getattr__(name: str) -> Any:  # TOMLDecodeError, looked up by an `except` only once something was raised
    if name == "TOMLDecodeError":
        return _parser().TOMLDecodeError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["TOMLDecodeError", "loads"]
