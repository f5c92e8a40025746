"""Shipped binaries (`.so`, `.a`, `.o`, executables): the CUDA libraries an ELF file needs (`DT_NEEDED`) and the
NVIDIA device code embedded in it (`.nv_fatbin`). Only the ELF header, the section table and the dynamic section
are read, through seeks: never a whole binary.

A binary is rebuilt for the target from its sources: `manual` when the tree has sources that look like its own
(a file or folder named after it), `blocker` when it has none."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import IO, Any

from ...i18n import t
from ...knowledge.ruleset import RuleSet
from ...model.findings import Difficulty, Finding
from ..common.base import BadInput, FileContext
from .core import Matcher, Token

_DEVICE_CODE = frozenset({".nv_fatbin", ".nvFatBinSegment", "__nv_module_id", ".nv.fatbin", "__nv_relfatbin"})
_AR_MAGIC = b"!<arch>\n"
_MAX_MEMBERS = 4096
_SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".c", ".pyx")


class BinaryError(BadInput):
    """A file named like a binary that is not one we can read (truncated, not ELF)."""


class _Window(io.RawIOBase):
    """A part of a file (an archive member) as a file of its own."""

    def __init__(self, handle: IO[bytes], offset: int, size: int) -> None:
        self.handle, self.offset, self.size, self.position = handle, offset, size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, position: int, whence: int = 0) -> int:
        base = {0: 0, 1: self.position, 2: self.size}[whence]
        self.position = max(0, base + position)
        return self.position

    def tell(self) -> int:
        return self.position

    def read(self, size: int = -1) -> bytes:
        left = self.size - self.position
        size = left if size is None or size < 0 else min(size, left)
        if size <= 0:
            return b""
        self.handle.seek(self.offset + self.position)
        chunk = self.handle.read(size)
        self.position += len(chunk)
        return chunk


def elf_facts(stream: IO[bytes]) -> tuple[list[str], set[str]]:
    """The libraries an ELF object needs and the names of its sections."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.dynamic import DynamicSection
    from elftools.elf.elffile import ELFFile

    try:
        elf = ELFFile(stream)
        sections = {section.name for section in elf.iter_sections()}
        needed: list[str] = []
        for section in elf.iter_sections():
            if isinstance(section, DynamicSection):
                needed.extend(
                    str(getattr(tag, "needed", "")) for tag in section.iter_tags() if tag.entry.d_tag == "DT_NEEDED"
                )
    except (ELFError, ValueError, OSError, KeyError, AssertionError) as exc:  # pyelftools asserts on bad input
        raise BinaryError(t("not a readable ELF file ({error})", error=f"{type(exc).__name__}: {exc}")) from None
    except Exception as exc:  # a truncated table can fail anywhere in pyelftools' parsing
        raise BinaryError(t("not a readable ELF file ({error})", error=type(exc).__name__)) from None
    return needed, sections


def binary_facts(path: Path) -> tuple[list[str], set[str]]:
    with path.open("rb") as handle:
        head = handle.read(8)
        if head.startswith(b"\x7fELF"):
            handle.seek(0)
            return elf_facts(handle)
        if head == _AR_MAGIC:
            return _archive_facts(handle, path.stat().st_size)
    raise BinaryError(t("not an ELF file or an archive of them"))


def _archive_facts(handle: IO[bytes], size: int) -> tuple[list[str], set[str]]:
    needed: list[str] = []
    sections: set[str] = set()
    offset = len(_AR_MAGIC)
    for _ in range(_MAX_MEMBERS):
        if offset + 60 > size:
            break
        handle.seek(offset)
        header = handle.read(60)
        try:
            length = int(header[48:58].decode("ascii").strip() or "0")
        except ValueError:
            raise BinaryError(t("a damaged archive member header")) from None
        body = offset + 60
        handle.seek(body)
        if handle.read(4) == b"\x7fELF":
            try:
                member_needed, member_sections = elf_facts(_Window(handle, body, length))  # type: ignore[arg-type]
            except BinaryError:
                member_needed, member_sections = [], set()
            needed.extend(member_needed)
            sections |= member_sections
        offset = body + length + (length & 1)
    return needed, sections


class ElfAnalyzer:
    language = "elf"
    incremental = None
    reads_path = True  # the engine hands over the path, not the bytes

    def __init__(self, ruleset: RuleSet) -> None:
        self.ruleset = ruleset

    def parse(self, data: bytes, old_tree: Any | None = None) -> Any:
        return None

    def analyze(
        self, data: bytes, tree: Any, context: FileContext, ranges: list[tuple[int, int]] | None = None
    ) -> list[Finding]:
        path = Path(context.path)
        needed, sections = binary_facts(path)
        tokens = [Token("needed", name, 0, 0) for name in dict.fromkeys(needed)]
        device = sorted(_DEVICE_CODE & sections)
        if device:
            tokens.append(Token("section", device[0], 0, 0))
        findings = Matcher(self.ruleset, self.language, context, b"").feed(tokens)
        if findings and self._package_rating(path, findings, context.target):
            return findings
        source = own_source(path)
        for finding in findings:
            if source is not None and finding.difficulty >= Difficulty.BLOCKER:
                finding.difficulty = Difficulty.MANUAL
                finding.message = t(
                    "{message}; rebuild it for the target from its sources ({source})",
                    message=finding.message,
                    source=source,
                )
            elif source is None and finding.difficulty >= Difficulty.MANUAL:
                finding.difficulty = Difficulty.BLOCKER
                finding.message = t(
                    "{message}; no source for it is in the tree: ask its vendor for a build for the target",
                    message=finding.message,
                )
        return findings

    def _package_rating(self, path: Path, findings: list[Finding], target: str) -> bool:
        """A binary that belongs to a Python package takes the package's rating (one thing, one rating): it ships
        its build for the target beside this one (`libbitsandbytes_rocm72.so` beside `..._cuda121.so`), or the
        package has a build for the target to install (the rule data's libraries, as its imports are rated);
        False when it is no such package's, or the package has no build for the target."""
        package = python_package(path)
        if package is None:
            return False
        label = t(self.ruleset.targets[target].label) if target in self.ruleset.targets else target
        beside = _target_build_beside(path, self._target_words(target))
        if beside is not None:
            for finding in findings:
                finding.difficulty = Difficulty.PORTABLE
                finding.message = t(
                    "`{binary}` is `{package}`'s CUDA build (it needs `{name}`); the package ships its {platform} "
                    "build beside it ({build}), which runs there",
                    binary=path.name,
                    package=package,
                    name=finding.symbol,
                    platform=label,
                    build=beside,
                )
            return True
        from ...knowledge.python import load_python_knowledge

        match = load_python_knowledge(self.ruleset).match([package])
        if match is None or match[1] != 1 or match[0].report == "use":
            return False
        outcome = self.ruleset.outcome(match[0].symbol(package, target), target)
        if match[0].render(package, target) is None or outcome.difficulty >= Difficulty.BLOCKER:
            return False
        for finding in findings:
            finding.difficulty = outcome.difficulty
            finding.message = t(
                "`{binary}` is part of `{package}` (it needs `{name}`): install {package}'s {platform} build instead "
                "of rebuilding it; {advice}",
                binary=path.name,
                package=package,
                name=finding.symbol,
                platform=label,
                advice=outcome.message,
            )
        return True

    def _target_words(self, target: str) -> frozenset[str]:
        table = (self.ruleset.tables.get("python") or {}).get("target", {}).get(target, {})
        return frozenset(str(w).lower() for w in table.get("ported-words", []))


def python_package(path: Path) -> str | None:
    """The top-level Python package a file is in (the outermost folder above it with an `__init__.py`)."""
    folder = path.resolve().parent
    found = None
    for _ in range(12):
        if not (folder / "__init__.py").is_file():
            break
        found = folder.name
        folder = folder.parent
    return found


def _target_build_beside(path: Path, words: frozenset[str]) -> str | None:
    """A binary beside `path` named like it but for the target (`libfoo_rocm72.so` for `libfoo_cuda121.so`)."""
    if not words:
        return None
    stem = path.name.split(".", 1)[0]
    base = "".join(c for c in stem.lower().split("cuda", 1)[0] if c.isalpha() or c == "_")
    if "cuda" not in stem.lower() or not base:
        return None
    try:
        siblings = sorted(p.name for p in path.parent.iterdir() if p.is_file() and p != path)
    except OSError:
        return None
    for name in siblings:
        lower = name.lower()
        if not lower.startswith(base) or (".so" not in lower and not lower.endswith((".a", ".o"))):
            continue
        rest = lower[len(base) :].split(".", 1)[0]
        if any(rest.startswith(word) for word in words):
            return name
    return None


def own_source(path: Path) -> str | None:
    """A source file or folder near the binary named after it (`libfoo.so`, `foo.cpython-311-x86_64-linux-gnu.so`
    -> `foo.cu`, `foo/`, `src/foo.cpp`), looked for up to three folders above it."""
    stem = path.name.split(".", 1)[0]
    stem = stem[3:] if stem.startswith("lib") and len(stem) > 3 else stem
    stem = stem.lstrip("_")
    if not stem:
        return None
    folder = path.resolve().parent
    for base in [folder, *folder.parents][:4]:
        for suffix in _SOURCE_SUFFIXES:
            for candidate in (
                base / f"{stem}{suffix}",
                base / "src" / f"{stem}{suffix}",
                base / "csrc" / f"{stem}{suffix}",
            ):
                if candidate.is_file():
                    return os.path.relpath(candidate, folder)
        for candidate in (base / stem, base / "src" / stem, base / "csrc" / stem):
            if candidate.is_dir() and any(p.suffix in _SOURCE_SUFFIXES for p in candidate.iterdir() if p.is_file()):
                return os.path.relpath(candidate, folder) + "/"
    return None
