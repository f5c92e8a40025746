"""Dependency manifests: pip requirement files, and the requirement strings other manifests hold (pyproject,
setup.cfg, conda's environment.yml, `pip install` in scripts and Dockerfiles). A requirement gives the package's
normalised name, its local version (`+cu121`) and the index URLs beside it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..common.base import FileContext
from . import grammars
from .core import InventoryAnalyzer, Token

# name [extras] (op version)* ; markers      pip's `==`, conda's single `=`
_REQUIREMENT = re.compile(
    r"\s*(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*\(?\s*"
    r"(?:(?P<op>===|==|~=|!=|<=|>=|<|>|=)\s*(?P<version>[^\s,;()\[\]]+))?"
)
_LOCAL = re.compile(r"\+[A-Za-z0-9.]+$")
_INDEX_OPTIONS = frozenset({"--extra-index-url", "--index-url", "-i", "--find-links", "-f", "--index"})


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_tokens(text: str, base: int) -> Iterator[Token]:
    """Tokens of one requirement string at byte `base`: `package` (facts: version), and `local-version` for a
    `+cu121` build tag (context: the package); a direct URL (`git+https://...`) is a `url`."""
    stripped = text.strip()
    if "://" in stripped.split("@", 1)[-1] and not _REQUIREMENT.fullmatch(stripped):
        lead = len(text) - len(text.lstrip())
        yield Token("url", stripped, base + lead, base + lead + len(stripped.encode()))
        return
    found = _REQUIREMENT.match(text)
    if found is None:
        return
    name = found.group("name")
    version = found.group("version") or ""
    name_start = base + len(text[: found.start("name")].encode())
    facts = {"version": version}
    normal = normalise(name)
    if normal == "torch" and version:
        facts["torch"] = version
    yield Token("package", normal, name_start, name_start + len(name.encode()), "", facts)
    local = _LOCAL.search(version) if version else None
    if local is not None:
        start = base + len(text[: found.start("version") + local.start()].encode())
        torch = {"torch": version} if normal == "torch" else {}
        yield Token("local-version", local.group(0), start, start + len(local.group(0).encode()), normal, torch)


def install_tokens(program: str, words: list[Token]) -> Iterator[Token]:
    """`pip install ...`, `uv pip install ...`, `conda install ...`: the requirements and index URLs a command
    line names (words are the command's arguments)."""
    texts = [w.text for w in words]
    if program not in ("pip", "pip3", "uv", "conda", "mamba", "micromamba", "pipx") or "install" not in texts:
        return
    after = texts.index("install") + 1
    option = ""
    for word in words[after:]:
        if option in _INDEX_OPTIONS:
            yield Token("index", word.text, word.start, word.end, option)
            option = ""
            continue
        option = ""
        if word.text.startswith("-"):
            name, _, value = word.text.partition("=")
            if value and name in _INDEX_OPTIONS:
                start = word.end - len(value.encode())
                yield Token("index", value, start, word.end, name)
            elif not value:
                option = word.text
            continue
        if word.text.startswith(("http://", "https://")) or "/" in word.text or word.text.endswith((".txt", ".whl")):
            continue
        yield from requirement_tokens(word.text, word.start)


class RequirementsAnalyzer(InventoryAnalyzer):
    language = "requirements"

    def __init__(self, ruleset: Any) -> None:
        super().__init__(ruleset)
        self.parser = grammars.parser("requirements")

    def parse(self, data: bytes, old_tree: Any | None = None) -> Any:
        return self.parser.parse(data)

    def tokens(self, data: bytes, tree: Any, context: FileContext) -> Iterator[Token]:
        for node in tree.root_node.named_children:
            if node.type == "requirement":
                yield from requirement_tokens(grammars.text(data, node), node.start_byte)
            elif node.type == "global_opt":
                option = next((c for c in node.named_children if c.type == "option"), None)
                url = next((c for c in node.named_children if c.type == "url"), None)
                if option is not None and url is not None:
                    yield Token(
                        "index", grammars.text(data, url), url.start_byte, url.end_byte, grammars.text(data, option)
                    )
            elif node.type == "url":
                yield Token("url", grammars.text(data, node), node.start_byte, node.end_byte)


_SECTION = re.compile(rb"^\[([^\]\n]+)\]", re.M)
_KEY = re.compile(rb"^([A-Za-z_][\w.-]*)\s*[=:]", re.M)


class SetupCfgAnalyzer(InventoryAnalyzer):
    """setup.cfg: `install_requires`, `setup_requires` and `[options.extras_require]` values, one requirement a
    line (an INI file: no grammar needed)."""

    language = "setupcfg"

    def tokens(self, data: bytes, tree: Any, context: FileContext) -> Iterator[Token]:
        section = b""
        key = b""
        position = 0
        for line in data.splitlines(keepends=True):
            start = position
            position += len(line)
            body = line.rstrip(b"\r\n")
            stripped = body.strip()
            if not stripped or stripped.startswith((b"#", b";")):
                continue
            heading = _SECTION.match(body)
            if heading is not None:
                section, key = heading.group(1).strip(), b""
                continue
            value_start = 0
            if not body[:1].isspace():
                named = _KEY.match(body)
                if named is None:
                    continue
                key = named.group(1)
                value_start = named.end()
            if (
                key in (b"install_requires", b"setup_requires", b"tests_require")
                or section == b"options.extras_require"
            ):
                value = body[value_start:]
                text = value.split(b"#", 1)[0].decode("utf-8", "replace")
                if text.strip():
                    lead = len(text) - len(text.lstrip())
                    yield from requirement_tokens(text.strip(), start + value_start + lead)
