"""Only the project's own files count, as ruff counts them: ignore files, build trees and environments are left out
(and listed, with why, when they hold sources); a path named on the command line is always read."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Cli
from cudaport.project.config import load_settings
from cudaport.project.files import is_excluded

KERNEL = "#include <cuda_runtime.h>\nvoid f(void **p) { cudaMalloc(p, 4); }\n"


def _write(root: Path, name: str, text: str = KERNEL) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _scanned(cli: Cli, root: Path, *args: str) -> list[str]:
    report = cli("check", ".", "--format", "json", "--exit-zero", *args, cwd=root).json()
    return sorted({d["path"] for d in report["diagnostics"]})


@pytest.fixture(autouse=True)
def _no_global_excludes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not the developer's own ~/.gitconfig or ~/.config/git/ignore."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))


def test_gitignore_in_a_checkout(cli: Cli, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".git" / "info").mkdir(parents=True)
    for name in ["src/a.cu", "gen/b.cu", "src/c.gen.cu", "src/keep.gen.cu", "third/d.cu", "third/sub/e.cu", "x.cu"]:
        _write(root, name)
    _write(root, ".gitignore", "# generated\ngen/\n*.gen.cu\n!keep.gen.cu\n")
    _write(root, "third/.gitignore", "sub/\n")
    _write(root, ".git/info/exclude", "/x.cu\n")
    assert _scanned(cli, root) == ["src/a.cu", "src/keep.gen.cu", "third/d.cu"]
    everything = ["gen/b.cu", "src/a.cu", "src/c.gen.cu", "src/keep.gen.cu", "third/d.cu", "third/sub/e.cu", "x.cu"]
    assert _scanned(cli, root, "--no-respect-gitignore") == everything
    _write(root, "cudaport.toml", "respect-gitignore = false\n")
    assert _scanned(cli, root) == everything
    assert _scanned(cli, root, "--respect-gitignore") == ["src/a.cu", "src/keep.gen.cu", "third/d.cu"]
    (root / "cudaport.toml").unlink()
    # what is ignored and holds sources is said, with the file and the line that ignore it
    result = cli("check", ".", "--exit-zero", cwd=root)
    assert "Excluded, although they hold sources: gen/, third/sub/" in result.out
    report = cli("report", ".", "--format", "json", cwd=root).json()
    reasons = {e["path"]: e["reason"] for e in report["excluded"]}
    assert reasons["gen/"] == "ignored by `gen/` in .gitignore; it holds sources"
    assert reasons["third/sub/"] == "ignored by `sub/` in third/.gitignore; it holds sources"
    # a path named on the command line is always read
    assert cli("check", "gen/b.cu", "--format", "json", "--exit-zero", cwd=root).json()["files_scanned"] == 1
    assert "gen/b.cu" in {
        d["path"] for d in cli("check", "gen", "--format", "json", "--exit-zero", cwd=root).json()["diagnostics"]
    }


def test_gitignore_outside_a_checkout_is_not_read_but_ignore_is(cli: Cli, tmp_path: Path) -> None:
    """As ruff (and ripgrep): .gitignore counts in a git checkout only, .ignore everywhere."""
    root = tmp_path / "unpacked"
    for name in ["a.cu", "gen/b.cu", "tmp/c.cu"]:
        _write(root, name)
    _write(root, ".gitignore", "gen/\n")
    _write(root, ".ignore", "tmp/\n")
    assert _scanned(cli, root) == ["a.cu", "gen/b.cu"]


def test_global_excludes_file(cli: Cli, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    _write(root, "a.cu")
    _write(root, "scratch/b.cu")
    _write(Path.home(), ".config/git/ignore", "scratch/\n")
    assert _scanned(cli, root) == ["a.cu"]
    _write(Path.home(), ".gitconfig", "[core]\n\texcludesFile = ~/my-ignores\n")
    _write(Path.home(), "my-ignores", "a.cu\n")
    assert _scanned(cli, root) == ["scratch/b.cu"]


def test_build_trees_and_environments_are_not_the_project(cli: Cli, tmp_path: Path) -> None:
    root = tmp_path / "project"
    _write(root, "src/kernel.cu")
    _write(root, "build/CMakeFiles/gen.cu")  # `cmake -B build`: CMake's own sources of its checks
    _write(root, "out/CMakeCache.txt", "# a CMake cache\n")
    _write(root, "out/CMakeFiles/3.25/CompilerIdCUDA/id.cu")
    _write(root, "cmake-build-debug/x.cu")
    _write(root, "env/pyvenv.cfg", "home = /usr/bin\n")
    _write(root, "env/lib/site-packages/pkg/y.cu")
    _write(root, "pkg.egg-info/z.cu")
    _write(root, "tools/build/__init__.py", "")  # a Python package called build is source
    _write(root, "tools/build/probe.py", "import torch\nok = torch.cuda.is_available()\n")
    assert _scanned(cli, root) == ["src/kernel.cu", "tools/build/probe.py"]
    report = cli("report", ".", "--format", "json", cwd=root).json()
    reasons = {e["path"]: e["reason"] for e in report["excluded"]}
    assert reasons["out/"] == "a CMake build tree (it has CMakeCache.txt); it holds sources"
    assert reasons["env/"] == "a Python virtual environment (it has pyvenv.cfg); it holds sources"
    assert reasons["build/"] == "excluded by `build` (a default exclude); it holds sources"
    assert set(reasons) == {"build/", "cmake-build-debug/", "env/", "out/", "pkg.egg-info/"}
    # a configuration that lists its own excludes decides alone
    _write(root, "cudaport.toml", 'exclude = ["env"]\n')
    assert "out/CMakeFiles/3.25/CompilerIdCUDA/id.cu" in _scanned(cli, root)


def test_an_editor_document_in_an_ignored_or_build_folder_is_excluded(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    _write(root, ".gitignore", "gen/\n")
    for name in ["src/a.cu", "gen/deep/b.cu", "out/c.cu", "build/d.cu"]:
        _write(root, name)
    _write(root, "out/CMakeCache.txt", "")
    settings = load_settings(start=root)
    assert not is_excluded(root / "src/a.cu", settings)
    assert all(is_excluded(root / name, settings) for name in ["gen/deep/b.cu", "out/c.cu", "build/d.cu"])


def test_a_tree_unpacked_in_an_ignored_folder_of_another_checkout_is_read_whole(cli: Cli, tmp_path: Path) -> None:
    """The outer checkout ignores the folder (a benchmark's downloads): checked from inside, the tree is read
    whole, and the outer checkout is not where its headers are looked for."""
    outer = tmp_path / "outer"
    (outer / ".git").mkdir(parents=True)
    _write(outer, ".gitignore", "downloads/\n")
    inner = outer / "downloads" / "lib-1.0"
    _write(inner, "src/a.cu")
    _write(inner, "src/b.cu")
    assert _scanned(cli, inner) == ["src/a.cu", "src/b.cu"]


def test_links_a_walk_meets_are_read_once_and_linked_folders_never_entered(cli: Cli, tmp_path: Path) -> None:
    """A file reached through a link is the file it names (read once, under the name the walk met first); a folder
    that is a link is not walked (it is elsewhere, or a loop); a dangling link is no file; names sort as written."""
    root = tmp_path / "proj"
    _write(root, "src/b.cu")
    _write(root, "src/A.cu")
    _write(tmp_path / "outside", "elsewhere.cu")
    (root / "src" / "z_alias.cu").symlink_to(root / "src" / "b.cu")
    (root / "src" / "outside_link.cu").symlink_to(tmp_path / "outside" / "elsewhere.cu")
    (root / "linked").symlink_to(tmp_path / "outside", target_is_directory=True)
    (root / "loop").symlink_to(root, target_is_directory=True)
    (root / "src" / "dangling.cu").symlink_to(tmp_path / "missing.cu")
    listed = cli("check", ".", "--show-files", cwd=root).out.splitlines()
    paths = [line.split()[0] for line in listed if line.strip()]
    assert [p for p in paths if p.endswith(".cu")] == ["src/A.cu", "src/b.cu", "src/dangling.cu", "src/outside_link.cu"]
    assert _scanned(cli, root) == ["src/A.cu", "src/b.cu", "src/outside_link.cu"]
