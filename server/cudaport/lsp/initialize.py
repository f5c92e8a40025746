"""The client's `initialize` request as the server keeps it: its capabilities, options, locale, name and
workspace folders, read from the request's JSON (anything malformed counts as absent)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..model.records import record
from .documents import uri_path


@record(frozen=True)
class InitializeRequest:
    capabilities: dict[str, Any]
    initialization_options: Any
    locale: str | None
    client_name: str | None
    folders: list[Path]  # the workspace folders, else the root

    @classmethod
    def of(cls, params: Any) -> InitializeRequest:
        """From the request's `params` as JSON (camelCase keys); anything malformed counts as absent."""
        params = params if isinstance(params, dict) else {}
        capabilities = params.get("capabilities")
        client = params.get("clientInfo")
        locale = params.get("locale")
        name = client.get("name") if isinstance(client, dict) else None
        return cls(
            capabilities=capabilities if isinstance(capabilities, dict) else {},
            initialization_options=params.get("initializationOptions"),
            locale=locale if isinstance(locale, str) else None,
            client_name=name if isinstance(name, str) else None,
            folders=_folders(params),
        )


def _folders(params: dict[str, Any]) -> list[Path]:
    folders = params.get("workspaceFolders")
    uris = [f.get("uri") for f in folders if isinstance(f, dict)] if isinstance(folders, list) else []
    found = [p for p in (uri_path(u) for u in uris if isinstance(u, str)) if p is not None]
    if found:
        return found
    root = params.get("rootUri")
    if isinstance(root, str):
        path = uri_path(root)
        return [path] if path is not None else []
    root_path = params.get("rootPath")
    return [Path(root_path)] if isinstance(root_path, str) and root_path else []
