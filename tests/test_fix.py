"""`cudaport fix`: the exact rewritten text of every fixture, idempotence, encodings, line endings, permissions,
skipped files, symlinks, --diff and --unsafe-fixes. Expected outputs live in tests/expected/c/fixed*/ and were
reviewed line by line; a fixture without an expected file must come out unchanged."""

from __future__ import annotations

import difflib
import os
import stat
from pathlib import Path

import pytest

from conftest import EXPECTED, FIXTURES, Cli, copy_fixtures, fixture_files

UNSAFE_FIXTURES = sorted(p.name for p in (EXPECTED / "fixed-unsafe").iterdir())


def _show(expected: bytes, got: bytes) -> str:
    lines = difflib.unified_diff(
        expected.decode("utf-8", "replace").splitlines(),
        got.decode("utf-8", "replace").splitlines(),
        "expected",
        "cudaport fix",
        lineterm="",
    )
    return "\n" + "\n".join(lines)


@pytest.mark.parametrize("name", fixture_files())
def test_fix_rewrites_exactly_as_expected_and_is_idempotent(cli: Cli, workdir: Path, name: str) -> None:
    copy_fixtures(workdir, [name])
    original = (FIXTURES / name).read_bytes()
    expected_file = EXPECTED / "fixed" / name
    expected = expected_file.read_bytes() if expected_file.exists() else original

    first = cli("fix", name, "--target", "hip", cwd=workdir)
    got = (workdir / name).read_bytes()
    assert got == expected, _show(expected, got)
    changed = got != original
    assert f"in {1 if changed else 0} file" in first.out, first.out

    second = cli("fix", name, "--target", "hip", cwd=workdir)
    assert (workdir / name).read_bytes() == expected
    assert second.out.startswith("Fixed 0 findings in 0 files;"), second.out

    # nothing mechanical is left once the safe rewrites are applied
    report = cli("check", name, "--format", "json", cwd=workdir).json()
    assert [d for d in report["diagnostics"] if d["difficulty"] == "mechanical"] == []


def test_fix_reports_what_it_fixed_and_what_is_left(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["warp_reduce.cu", "runtime_check.cu"])
    result = cli("fix", ".", cwd=workdir)
    assert result.out == "Fixed 35 findings in 2 files; left for a person: 0 mechanical, 19 manual, 0 blocker.\n"
    assert result.code == 1  # manual findings are left: at or above the default --fail-on
    assert cli("fix", ".", "--fail-on", "blocker", cwd=workdir).code == 0
    assert cli("fix", ".", "--fail-on", "never", cwd=workdir).code == 0


@pytest.mark.parametrize("name", UNSAFE_FIXTURES)
def test_unsafe_fixes_apply_the_reviewed_rewrites_too(cli: Cli, workdir: Path, name: str) -> None:
    copy_fixtures(workdir, [name])
    cli("fix", name, "--unsafe-fixes", cwd=workdir)
    expected = (EXPECTED / "fixed-unsafe" / name).read_bytes()
    got = (workdir / name).read_bytes()
    assert got == expected, _show(expected, got)
    cli("fix", name, "--unsafe-fixes", cwd=workdir)
    assert (workdir / name).read_bytes() == expected


def test_safe_fix_never_applies_unsafe_edits(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["warp_reduce.cu"])
    cli("fix", "warp_reduce.cu", cwd=workdir)
    text = (workdir / "warp_reduce.cu").read_text()
    assert "__shfl_down_sync(0xffffffff, v, offset)" in text
    assert "__ballot_sync(0xffffffff" in text


def test_encodings_line_endings_and_permissions_are_kept(cli: Cli, workdir: Path) -> None:
    names = ["gbk_comments.cu", "utf8_bom.cu", "crlf_endings.cu", "runtime_check.cu"]
    copy_fixtures(workdir, names)
    os.chmod(workdir / "runtime_check.cu", 0o751)
    os.chmod(workdir / "crlf_endings.cu", 0o600)
    cli("fix", *names, cwd=workdir)

    gbk = (workdir / "gbk_comments.cu").read_bytes()
    gbk.decode("gbk")  # still GBK
    with pytest.raises(UnicodeDecodeError):
        gbk.decode("utf-8")
    assert "/* 分配显存 */ hipMalloc(&a, n * sizeof(float));".encode("gbk") in gbk

    bom = (workdir / "utf8_bom.cu").read_bytes()
    assert bom.startswith(b"\xef\xbb\xbf") and bom.count(b"\xef\xbb\xbf") == 1
    assert "/* größe */ hipStream_t s; hipStreamCreate(&s);".encode() in bom

    crlf = (workdir / "crlf_endings.cu").read_bytes()
    assert crlf.count(b"\r\n") == crlf.count(b"\n") == (FIXTURES / "crlf_endings.cu").read_bytes().count(b"\r\n")

    assert stat.S_IMODE((workdir / "runtime_check.cu").stat().st_mode) == 0o751
    assert stat.S_IMODE((workdir / "crlf_endings.cu").stat().st_mode) == 0o600
    assert sorted(p.name for p in workdir.iterdir() if p.is_file()) == sorted(names)  # no temporary files left


def test_binary_and_oversized_files_are_skipped_and_untouched(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["binary_blob.cu"])
    big = workdir / "huge.cu"
    big.write_bytes(b"void f() { cudaDeviceSynchronize(); }\n" * 200_000)
    binary_before = (workdir / "binary_blob.cu").read_bytes()
    big_before = big.read_bytes()
    result = cli("fix", ".", cwd=workdir)
    assert "cudaport: skipped binary_blob.cu: binary file (contains NUL bytes)" in result.err
    assert "cudaport: skipped huge.cu: file is 7,600,000 bytes, over the 5,242,880-byte limit" in result.err
    assert (workdir / "binary_blob.cu").read_bytes() == binary_before
    assert big.read_bytes() == big_before
    assert result.code == 0


def test_fix_never_writes_outside_the_given_paths(cli: Cli, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "shared_kernels.cu"
    target.write_text("#include <cuda_runtime.h>\nvoid f() { cudaDeviceSynchronize(); }\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / "own.cu").write_text("#include <cuda_runtime.h>\nvoid g() { cudaDeviceReset(); }\n")
    (project / "linked.cu").symlink_to(target)
    (project / "linked_dir").symlink_to(outside, target_is_directory=True)
    before = target.read_bytes()

    result = cli("fix", ".", cwd=project)
    assert target.read_bytes() == before
    assert (project / "linked.cu").is_symlink()
    assert "hipDeviceReset" in (project / "own.cu").read_text()
    assert "cudaport: skipped linked.cu: symbolic link: fix the file it points to instead" in result.err

    # named explicitly, a symlink is still not written through
    result = cli("fix", "linked.cu", cwd=project)
    assert target.read_bytes() == before
    assert "symbolic link" in result.err


def test_diff_shows_the_rewrite_without_writing(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["crlf_endings.cu", "prose_only.cpp"])
    before = (workdir / "crlf_endings.cu").read_bytes()
    result = cli("fix", "crlf_endings.cu", "--diff", cwd=workdir)
    assert (workdir / "crlf_endings.cu").read_bytes() == before
    assert result.out.startswith("--- a/crlf_endings.cu\n+++ b/crlf_endings.cu\n@@ -1,17 +1,17 @@\n")
    assert "-#include <cuda_runtime.h>\r\n+#include <hip/hip_runtime.h>\r\n" in result.out
    assert "\n-  CHECK(cudaMalloc(&d, 256 * sizeof(int)));\r\n" in result.out
    assert "\n+  CHECK(hipMalloc(&d, 256 * sizeof(int)));\r\n" in result.out
    assert result.err.strip().endswith("Would fix 7 findings in 1 file.")

    nothing = cli("fix", "prose_only.cpp", "--diff", cwd=workdir)
    assert nothing.code == 0
    assert nothing.out == ""
    assert "Would fix 0 findings in 0 files." in nothing.err


def test_diff_exits_as_fix_would_by_what_is_left(cli: Cli, workdir: Path) -> None:
    (workdir / "all_fixable.cu").write_text("#include <cuda_runtime.h>\nvoid f(void** p) { cudaMalloc(p, 4); }\n")
    (workdir / "left_manual.cu").write_text(
        "#include <cuda_runtime.h>\nvoid f(void** p) { cudaMalloc(p, 4); }\n"
        "__global__ void k(int* x) { x[0] = __shfl_down_sync(0xffffffff, x[0], 16); }\n"
    )
    for name, expected in (("all_fixable.cu", 0), ("left_manual.cu", 1)):
        diff = cli("fix", name, "--diff", cwd=workdir)
        assert diff.out, name  # something would be rewritten in both
        assert diff.code == expected, (name, diff.err)
        assert cli("fix", name, "--diff", "--fail-on", "blocker", cwd=workdir).code == 0
        copy = workdir / f"copy_{name}"
        copy.write_bytes((workdir / name).read_bytes())
        assert cli("fix", copy.name, cwd=workdir).code == diff.code


def test_diff_of_an_absolute_path_names_it_once(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["half_math.cu"])
    path = str(workdir / "half_math.cu")
    result = cli("fix", path, "--diff")
    assert result.out.startswith(f"--- a{path}\n+++ b{path}\n")


def test_fix_inserts_the_runtime_include_in_a_kernel_file_that_had_none(cli: Cli, workdir: Path) -> None:
    (workdir / "kernels.cu").write_bytes(
        b"// Copyright notice\r\n// second line\r\n\r\n__global__ void k(float* x) { x[threadIdx.x] = 0; }\r\n"
    )
    result = cli("check", "kernels.cu", "--format", "json", "--ignore", "CP1030", cwd=workdir)
    [finding] = result.json()["diagnostics"]
    assert (finding["rule"], finding["line"], finding["symbol"], finding["fixable"]) == (
        "CP1007",
        4,
        "__global__",
        True,
    )
    cli("fix", "kernels.cu", cwd=workdir)
    assert (workdir / "kernels.cu").read_bytes() == (
        b"// Copyright notice\r\n// second line\r\n\r\n#include <hip/hip_runtime.h>\r\n"
        b"__global__ void k(float* x) { x[threadIdx.x] = 0; }\r\n"
    )


def test_output_dir_writes_the_fixed_tree_elsewhere_and_leaves_the_original(cli: Cli, workdir: Path) -> None:
    project = workdir / "proj"
    copy_fixtures(project / "src", ["runtime_check.cu", "warp_reduce.cu"])
    (project / "src" / "notes.txt").write_text("build notes\n", encoding="utf-8")
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    result = cli("fix", "proj", "--output-dir", "ported", cwd=workdir)
    assert result.code in (0, 1), result.err
    assert "The fixed tree is under ported; the original is unchanged." in result.out
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before  # nothing in place changed
    out = workdir / "ported" / "proj"
    assert (out / "src" / "notes.txt").read_text(encoding="utf-8") == "build notes\n"  # the whole tree, copied
    assert not (out / ".git").exists()
    for name in ("runtime_check.cu", "warp_reduce.cu"):
        expected = EXPECTED / "fixed" / name
        fixed = (out / "src" / name).read_bytes()
        assert fixed == (expected.read_bytes() if expected.exists() else before[project / "src" / name]), name
    assert b"hipMalloc" in (out / "src" / "runtime_check.cu").read_bytes()
    # the same tree fixed in place gives the same files
    in_place = cli("fix", "proj", cwd=workdir)
    assert in_place.code in (0, 1)
    for name in ("runtime_check.cu", "warp_reduce.cu"):
        assert (project / "src" / name).read_bytes() == (out / "src" / name).read_bytes()


def test_output_dir_mistakes_are_usage_errors(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir / "proj", ["runtime_check.cu"])
    (workdir / "taken").mkdir()
    (workdir / "taken" / "x").write_text("x", encoding="utf-8")
    for options, message in (
        (["--output-dir", "taken"], "taken already exists and is not an empty directory"),
        (["--output-dir", "proj/out"], "overlap"),
        (["--output-dir", "out", "--diff"], "give it or --output-dir, not both"),
    ):
        result = cli("fix", "proj", *options, cwd=workdir)
        assert result.code == 2 and message in result.err, (options, result.err)
        assert not (workdir / "out").exists() and not (workdir / "proj" / "out").exists()
