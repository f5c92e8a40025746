"""The engine's analysis session (what the language server edits through) against `cudaport check`: after random
bursts of edits, on every target, with LF and CRLF line ends, CJK, emoji, lone CRs and lone surrogates, the
incrementally maintained findings are the findings of the same bytes analysed whole, and, for the text a file can
hold, those the CLI prints."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from conftest import Cli
from cudaport.analyzers.common.presence import Presence, lines_starting_with
from cudaport.engine.engine import Engine
from cudaport.engine.session import Session
from cudaport.knowledge.ruleset import load_ruleset
from cudaport.model.findings import Finding
from cudaport.model.source import LineIndex
from cudaport.project.config import Settings

DATA = Path(__file__).resolve().parent / "lsp" / "data"
TARGETS = sorted(load_ruleset().targets)
SNIPPETS = [
    "cudaMalloc(&q, 8);",
    "/* ",
    " */",
    "// 注释 cudaFree\n",
    '"cudaMemcpy"',
    "\n#if defined(USE_ROCM)\n",
    "\n#endif\n",
    "__device__ ",
    "lane % 32",
    "0xffffffff",
    "\n}\n",
    "{",
    "😀",
    "\r",
    "int cudaFree(void *p) { return 0; }\n",
    "{}",
    ";",
    "__shfl_down_sync(0xffffffff, v, 1);",
    # the words finders test the whole buffer for before working (kept per edit by the session's Presence)
    "<<<",
    "<<<1, 32>>>",
    'asm("mov.u32 %0, %%laneid;" : "=r"(l));',
    "\n#include <cooperative_groups.h>\n",
    "__launch_bounds__(256, 2) ",
    "operator",
]


def _identity(finding: Finding) -> tuple[object, ...]:
    """What a finding says and where, with its fixes' edits (a quick fix applied at stale offsets corrupts a file:
    the dual-stack fix's include at the top of the file is shared by findings far below it)."""
    fixes = tuple(fix.edits if fix is not None else None for fix in (finding.fix, finding.dual))
    return (finding.rule, finding.start, finding.end, finding.difficulty, finding.message, finding.symbol, fixes)


def _edit_and_compare(engine: Engine, session: Session, rng: random.Random, snippets: list[bytes], bursts: int) -> None:
    """Bursts of random edits; after each, the session's findings are those of its bytes analysed whole."""
    for burst in range(bursts):
        for _ in range(rng.randint(1, 5)):
            session.edit(*_random_edit(session.data, rng, snippets))
        session.analyse()
        whole, _ = engine.check_data(session.data, "c", session.path)
        assert sorted(map(_identity, session.findings)) == sorted(map(_identity, whole)), f"burst {burst}"


def _random_edit(session_data: bytes, rng: random.Random, snippets: list[bytes]) -> tuple[int, int, bytes]:
    start = rng.randrange(len(session_data) + 1)
    while 0 < start < len(session_data) and session_data[start] & 0xC0 == 0x80:
        start -= 1  # never inside a character: editors send whole characters
    if rng.random() < 0.25:
        end = session_data.find(b"\n", start, start + 400)
        return start, (end + 1 if end >= 0 else start), b""
    return start, start, rng.choice(snippets)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("target", TARGETS)
def test_incremental_findings_equal_a_whole_file_check_on_every_target(
    cli: Cli, tmp_path: Path, target: str, newline: str
) -> None:
    text = (DATA / "reduce.cu").read_text(encoding="utf-8").replace("\n", newline)
    path = tmp_path / "reduce.cu"
    engine = Engine(Settings(target=target))
    session = Session(engine, path, text.encode(), "c")
    session.analyse()
    rng = random.Random(f"{target}{newline}")
    snippets = [s.replace("\n", newline).encode() for s in SNIPPETS]
    _edit_and_compare(engine, session, rng, snippets, 40)
    # The CLI on the same bytes as a file: the same findings at the same places.
    path.write_bytes(session.data)
    report = cli("check", "reduce.cu", "--target", target, "--format", "json", "--exit-zero", cwd=tmp_path).json()
    lines = LineIndex(session.data)
    shown = {(d["line"], d["column"], d["rule"], d["symbol"]) for d in report["diagnostics"]}
    ours = set()
    for finding in session.findings:
        line, column = lines.position(finding.start, "codepoint")
        ours.add((line + 1, column + 1, finding.rule, finding.symbol))
    assert shown == ours


def test_lone_surrogates_in_the_buffer_keep_the_session_equal_to_a_whole_file_check() -> None:
    """JSON lets a client send lone surrogates; the server keeps them as their 3-byte form, which no file has."""
    engine = Engine(Settings())
    text = (DATA / "reduce.cu").read_text(encoding="utf-8")
    session = Session(engine, None, text.encode(), "c")
    session.analyse()
    rng = random.Random(7)
    snippets = [s.encode("utf-8", "surrogatepass") for s in [*SNIPPETS, "\ud800", "/* \udfff */"]]
    _edit_and_compare(engine, session, rng, snippets, 60)


def test_presence_follows_edits_like_a_fresh_search() -> None:
    """The session's word counts answer as `word in data` would after any edit, self-overlapping words too."""
    rng = random.Random(7)
    words = [b"<<<", b"asm", b"aa", b"__shared__", b"#", b"operator"]
    alphabet = [b"<", b"a", b"s", b"m", b"#", b" ", b"__shared__", b"operator", b"\n"]
    data = b"".join(rng.choice(alphabet) for _ in range(200))
    presence = Presence()
    for step in range(3000):
        for word in rng.sample(words, 3):
            assert presence.has(data, word) == (word in data), (step, word)
        start = rng.randrange(len(data) + 1)
        end = min(len(data), start + rng.randrange(6))
        text = b"".join(rng.choice(alphabet) for _ in range(rng.randrange(4)))
        new = data[:start] + text + data[end:]
        presence.edited(data, new, start, end, text)
        data = new
    other = b"a buffer the counts did not follow: asm"
    assert presence.has(other, b"asm") and not presence.has(other, b"<<<")


@pytest.mark.parametrize("target", ["hip", "npu", "musa"])
def test_edits_on_directive_lines_keep_the_session_equal_to_a_whole_file_check(target: str) -> None:
    """Text typed after `#include <...>`, `#if`/`#endif` and typedef lines is analysed where it is, not as a
    whole-file change, unless it changes the directive: the findings stay those of a whole-file check."""
    fixtures = sorted((Path(__file__).resolve().parent / "fixtures" / "c").glob("*.cu"))
    text = b"".join(path.read_bytes() for path in fixtures)[:60000]
    engine = Engine(Settings(target=target))
    session = Session(engine, Path("directives.cu"), text, "c")
    session.analyse()
    rng = random.Random(target)
    whole_file_runs = 0
    for burst in range(40):
        for _ in range(rng.randint(1, 3)):
            lines = session.data.split(b"\n")
            directives = [i for i, line in enumerate(lines) if line.lstrip().startswith(b"#") or b"typedef" in line]
            row = rng.choice(directives) if rng.random() < 0.7 else rng.randrange(len(lines))
            end_of_line = sum(len(line) + 1 for line in lines[:row]) + len(lines[row])
            typed = rng.choice([b"x", b"\n", b" ", b"", b" // note", b"\n#endif", b"\n#if 0"])
            if typed:
                session.edit(end_of_line, end_of_line, typed)
            elif end_of_line:
                session.edit(end_of_line - 1, end_of_line, b"")
        whole_file_runs += session.needs_full
        session.analyse()
        whole, _ = engine.check_data(session.data, "c", session.path)
        assert sorted(map(_identity, session.findings)) == sorted(map(_identity, whole)), f"burst {burst}"
    assert whole_file_runs < 28  # most of these edits leave every directive as it was (35, 28, 35 when any was whole)


# A conditional over several lines (the marker on a continuation line) and portability #defines, for every target.
MULTILINE_GUARDS = """
#if defined(SOME_FEATURE) && \\
    (defined(USE_ROCM) || defined(USE_NPU) || defined(USE_MLU) || \\
     defined(USE_MUSA) || defined(USE_MACA) || defined(USE_COREX))
static void guarded_alloc(void **p) { cudaMalloc(p, 8); cudaStreamSynchronize(0); }
#elif defined(OTHER)
static void guarded_free(void *p) { cudaFree(p); }
#else
static void plain(void *p) { cudaDeviceSynchronize(); cudaFree(p); }
#endif
#define cudaMemset hipMemset
#define cudaMemcpy musaMemcpy
typedef hipEvent_t cudaEvent_t;
void uses(void *p, cudaEvent_t e) { cudaMemset(p, 0, 8); cudaMemcpy(p, p, 8, cudaMemcpyDefault); }
"""
DIRECTIVE_FIXTURES = ["dual_stack.cu", "guarded_helpers.cu", "uses_compat.cu", "warp_reduce.cu", "runtime_check.cu"]
DIRECTIVE_TYPING = [b"x", b" ", b")", b"(", b"|", b"!", b"\\", b"\n", b"/*", b"*/", b"#endif\n", b"#else\n"]
DIRECTIVE_TYPING += [b"defined(USE_ROCM) || ", b"defined(USE_NPU) && ", b" \\\n  ", b"\n#if 0\n"]


def _directive_or_paste_edit(data: bytes, rng: random.Random) -> tuple[int, int, bytes]:
    """An edit anywhere in a directive line (its continuation lines too), or a block of lines pasted or cut."""
    lines = data.split(b"\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    choice = rng.random()
    if choice < 0.6:
        directive_rows = [
            i
            for i, line in enumerate(lines)
            if line.lstrip().startswith(b"#") or (i > 0 and lines[i - 1].rstrip(b"\r").endswith(b"\\"))
        ]
        row = rng.choice(directive_rows or [0])
        at = starts[row] + rng.randrange(len(lines[row]) + 1)
        if rng.random() < 0.35:
            return at, min(starts[row] + len(lines[row]), at + rng.randint(1, 3)), b""
        return at, at, rng.choice(DIRECTIVE_TYPING)
    first = rng.randrange(len(lines))
    last = min(len(lines), first + rng.randint(1, 30))
    block = data[starts[first] : min(starts[last], len(data))]
    if choice < 0.85:
        at = starts[rng.randrange(len(lines))]
        return min(at, len(data)), min(at, len(data)), block  # a paste
    return starts[first], min(starts[last], len(data)), b""  # a cut


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("target", TARGETS)
def test_directive_edits_continuations_and_pastes_keep_the_session_equal_to_a_check(
    cli: Cli, tmp_path: Path, target: str, newline: str
) -> None:
    """Edits inside #if/#elif/#else/#endif lines and their continuation lines, and pastes and cuts of blocks of
    lines (directives and includes among them), are analysed as far as they reach (the chains they change), not
    the whole file: the findings stay those of a whole-file check after every burst, and those the CLI prints."""
    fixtures = Path(__file__).resolve().parent / "fixtures" / "c"
    # Large enough that an edit's reach is a small part of it (past half the file, a session analyses it whole).
    text = "".join((fixtures / name).read_text(encoding="utf-8") for name in DIRECTIVE_FIXTURES * 3) + MULTILINE_GUARDS
    text = text.replace("\r\n", "\n").replace("\n", newline)
    path = tmp_path / "directives.cu"
    engine = Engine(Settings(target=target))
    session = Session(engine, path, text.encode(), "c")
    session.analyse()
    rng = random.Random(f"directives {target}{newline}")
    whole_file = 0
    for burst in range(40):
        for _ in range(rng.randint(1, 3)):
            start, end, typed = _directive_or_paste_edit(session.data, rng)
            session.edit(start, end, typed.replace(b"\n", newline.encode()) if newline != "\n" else typed)
        whole_file += session.analyse().mode == "full"
        whole, _ = engine.check_data(session.data, "c", session.path)
        assert sorted(map(_identity, session.findings)) == sorted(map(_identity, whole)), f"burst {burst}"
    assert whole_file < 30  # most directive edits and pastes re-analyse what they change, not the file
    path.write_bytes(session.data)
    report = cli("check", path.name, "--target", target, "--format", "json", "--exit-zero", cwd=tmp_path).json()
    lines = LineIndex(session.data)
    shown = {(d["line"], d["column"], d["rule"], d["symbol"], d["message"]) for d in report["diagnostics"]}
    ours = set()
    for finding in session.findings:
        line, column = lines.position(finding.start, "codepoint")
        ours.add((line + 1, column + 1, finding.rule, finding.symbol, finding.message))
    assert shown == ours


def test_an_edit_on_the_continuation_line_of_an_if_is_a_directive_edit() -> None:
    """`#if defined(A) && \\` + `defined(USE_ROCM)`: the marker on the continuation line makes the branch already
    dual-stack; an edit there that drops it must re-rate the calls in the branch (it was taken for an ordinary
    line, and they stayed portable)."""
    text = (
        b"#include <cuda_runtime.h>\n"
        + b"void before(void *p) { cudaFree(p); }\n" * 40
        + b"#if defined(SOME_FEATURE) || \\\n    defined(USE_ROCM)\n"
        + b"void guarded(void **p) { cudaMalloc(p, 8); }\n#endif\n"
        + b"void after(void *p) { cudaFree(p); }\n" * 40
    )
    engine = Engine(Settings(target="hip"))
    session = Session(engine, Path("continued.cu"), text, "c")
    session.analyse()

    def malloc() -> Finding:
        return next(f for f in session.findings if f.symbol == "cudaMalloc")

    assert malloc().data.get("ported") == "1"
    at = session.data.index(b"defined(USE_ROCM)")
    session.edit(at, at + len(b"defined(USE_ROCM)"), b"defined(USE_OTHER)")
    assert session.analyse().mode != "local"  # the chain it changed, not the whole file
    whole, _ = engine.check_data(session.data, "c", session.path)
    assert sorted(map(_identity, session.findings)) == sorted(map(_identity, whole))
    assert "ported" not in malloc().data


def test_line_tables_follow_edits_like_a_fresh_search() -> None:
    """The session's tables of lines starting with a word list what a fresh search finds after any edit, and a
    change of a listed line (or of a line continuing one) changes the table's generation."""
    rng = random.Random(11)
    alphabet = [b"#", b" ", b"\t", b"x", b"\n", b"\\", b"\r\n", b"#if", b"typedef"]
    data = b"".join(rng.choice(alphabet) for _ in range(300))
    presence = Presence()
    for step in range(3000):
        tables = {word: presence.lines_starting_with(data, word) for word in (b"#", b"typedef")}
        for word, table in tables.items():
            assert table.starts == list(lines_starting_with(data, word)), (step, word)
        start = rng.randrange(len(data) + 1)
        end = min(len(data), start + rng.randrange(6))
        text = b"".join(rng.choice(alphabet) for _ in range(rng.randrange(4)))
        new = data[:start] + text + data[end:]
        before = {word: (table.generation, _listed_text(data, table.starts)) for word, table in tables.items()}
        presence.edited(data, new, start, end, text)
        data = new
        for word, table in tables.items():
            generation, text_before = before[word]
            if _listed_text(data, table.starts) != text_before:
                assert table.generation != generation, (step, word)


def _listed_text(data: bytes, starts: list[int]) -> list[bytes]:
    """The logical lines (with their backslash continuations) of the listed starts."""
    out = []
    for start in starts:
        end = data.find(b"\n", start)
        while end != -1 and (data[end - 1 : end] == b"\\" or data[end - 2 : end] == b"\\\r"):
            end = data.find(b"\n", end + 1)
        out.append(data[start : len(data) if end == -1 else end])
    return out


# ---- local analyses: the edited declarations parsed alone, settled against the whole file -----------------------
# Two functions, the second with a `/* ... */` comment: a `/*` typed in the first runs on to it in the file.
TWO_FUNCTIONS = (DATA / "two_functions.cu").read_text(encoding="utf-8")


TYPED_IN_CODE = [" cudaFree(q);", " x += 1;", " // 注释", " lane % 32", "x", " __syncthreads();", "\n"]


def _typing(data: bytes, rng: random.Random, snippets: list[bytes]) -> list[tuple[int, int, bytes]]:
    """What typing does: a line typed at the end of a line, one character at a time, and then (mostly) erased the
    same way; sometimes any edit at all, which stays."""
    if rng.random() < 0.15:
        return [_random_edit(data, rng, snippets)]
    ends = [i for i in range(len(data)) if data[i : i + 1] == b"\n"]
    at = rng.choice(ends)
    if at > 0 and data[at - 1 : at] == b"\r":
        at -= 1
    typed = rng.choice(TYPED_IN_CODE).encode()
    edits = [(at + i, at + i, typed[i : i + 1]) for i in range(len(typed))]
    if rng.random() < 0.8:
        edits += [(at + i - 1, at + i, b"") for i in range(len(typed), 0, -1)]
    return edits


def _typed(session: Session, needle: bytes, text: bytes) -> None:
    at = session.data.index(needle)
    session.edit(at, at, text)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("target", TARGETS)
def test_local_analyses_settle_to_a_whole_file_check(target: str, newline: str) -> None:
    """Random edits (comments opened and closed, braces, directives, CJK, emoji, lone CRs) analysed locally when
    they can be: after settle() the findings are a whole-file check's, and whenever the local ones were not,
    settle() said so (a front end sends them again only then)."""
    text = (DATA / "reduce.cu").read_text(encoding="utf-8").replace("\n", newline)
    engine = Engine(Settings(target=target))
    session = Session(engine, Path("reduce.cu"), text.encode(), "c")
    session.analyse()
    rng = random.Random(f"local{target}{newline}")
    snippets = [s.replace("\n", newline).encode() for s in SNIPPETS]
    modes: list[str] = []
    edits = (edit for _ in range(12) for edit in _typing(session.data, rng, snippets))
    for burst, edit in enumerate(edits):
        session.edit(*edit)
        outcome = session.analyse(local_first=True)
        modes.append(outcome.mode)
        provisional = sorted(map(_identity, session.findings))
        assert session.settled == (outcome.mode != "local")
        changed = session.settle()
        whole, _ = engine.check_data(session.data, "c", session.path)
        settled = sorted(map(_identity, session.findings))
        assert settled == sorted(map(_identity, whole)), f"burst {burst}"
        if outcome.mode == "local":
            assert changed or provisional == settled, f"burst {burst}: a local analysis differed, unannounced"
        assert session.settled
    assert modes.count("local") >= 10, modes  # the path is taken (less on targets whose fixes edit the top)


def test_typing_inside_a_function_is_analysed_alone_and_settles_unchanged() -> None:
    engine = Engine(Settings(target="hip"))
    session = Session(engine, Path("two.cu"), TWO_FUNCTIONS.encode(), "c")
    session.analyse()
    _typed(session, b"  cudaFree(d);", b"  cudaDeviceSynchronize();\n")
    outcome = session.analyse(local_first=True)
    assert outcome.mode == "local"
    assert not session.settled
    assert "cudaDeviceSynchronize" in [f.symbol for f in session.findings]  # found before the file is re-parsed
    assert session.settle() is False
    whole, _ = engine.check_data(session.data, "c", session.path)
    assert sorted(map(_identity, session.findings)) == sorted(map(_identity, whole))
    # an edit before settling: the next analysis covers the function again, with the whole file's tree
    _typed(session, b"  cudaFree(d);", b"x")
    session.analyse(local_first=True)
    _typed(session, b"  cudaFree(d);", b"y")
    assert session.analyse().mode != "local"
    assert session.settled
    whole, _ = engine.check_data(session.data, "c", session.path)
    assert sorted(map(_identity, session.findings)) == sorted(map(_identity, whole))


def test_an_include_edited_is_analysed_alone_and_waits_for_the_whole_file() -> None:
    """A header's name typed into: its line is analysed alone at once, but what the file includes decides findings
    far from it (the runtime include nvcc adds, CP1007, at the first kernel), so the findings stay provisional
    until a whole-file analysis, which settle(allow_full=False) declines and says so; typing elsewhere meanwhile is
    analysed alone too, without going over the include's line again."""
    engine = Engine(Settings(target="hip"))
    session = Session(engine, Path("two.cu"), TWO_FUNCTIONS.encode(), "c")
    session.analyse()
    assert "CP1007" not in [f.rule for f in session.findings]
    _typed(session, b"time.h>", b"x")  # <cuda_runxtime.h>: no runtime header any more
    assert session.analyse(local_first=True).mode == "local"
    assert "cuda_runtime.h" not in [f.symbol for f in session.findings]  # the line's own finding went at once
    assert session.settle(allow_full=False) is False
    assert session.awaits_whole_file
    _typed(session, b"  cudaFree(d);", b"  cudaDeviceSynchronize();\n")
    assert session.analyse(local_first=True).mode == "local"
    assert session.provisional[0][0] == 0  # the include's line: still provisional, not made dirty again
    assert session.settle(allow_full=False) is False
    assert session.settle() is True  # the whole file: CP1007 at the first kernel
    assert not session.awaits_whole_file
    assert "CP1007" in [f.rule for f in session.findings]
    whole, _ = engine.check_data(session.data, "c", session.path)
    assert sorted(map(_identity, session.findings)) == sorted(map(_identity, whole))
    at = session.data.index(b"runxtime")
    session.edit(at + 3, at + 4, b"")
    session.analyse(local_first=True)
    session.settle()
    assert session.data.startswith(b"#include <cuda_runtime.h>\n")
    assert "CP1007" not in [f.rule for f in session.findings]
    whole, _ = engine.check_data(session.data, "c", session.path)
    assert sorted(map(_identity, session.findings)) == sorted(map(_identity, whole))


def test_lines_erased_with_their_includes_are_analysed_and_settle_to_a_check() -> None:
    """Several declarations erased at once (a comment, an include, a function): the old tree, edited, keeps
    each with no width at the edit, and tree-sitter's prev_sibling can go round among them; the span around the
    edit is found all the same."""
    text = b"// one\n#include <cuda_runtime.h>\n// two\n#include <cublas_v2.h>\nint x;\nvoid f() { cudaFree(0); }\n"
    engine = Engine(Settings(target="hip"))
    session = Session(engine, Path("erased.cu"), text, "c")
    session.analyse()
    session.edit(text.index(b"// two"), len(text), b"")  # to the end of the file
    session.analyse(local_first=True)
    session.settle()
    whole, _ = engine.check_data(session.data, "c", session.path)
    assert sorted(map(_identity, session.findings)) == sorted(map(_identity, whole))


def test_a_comment_opened_inside_a_function_settles_to_what_the_file_makes_of_it() -> None:
    """`/*` typed in the first function: alone, the comment ends with it; in the file it runs on to the `*/` in
    the second function and hides the cudaMalloc before it. settle() finds that out."""
    engine = Engine(Settings(target="hip"))
    session = Session(engine, Path("two.cu"), TWO_FUNCTIONS.encode(), "c")
    session.analyse()
    _typed(session, b"if (i < n)", b"/* ")
    assert session.analyse(local_first=True).mode == "local"
    assert "cudaMalloc" in [f.symbol for f in session.findings]
    assert session.settle() is True
    assert "cudaMalloc" not in [f.symbol for f in session.findings]
    whole, _ = engine.check_data(session.data, "c", session.path)
    assert sorted(map(_identity, session.findings)) == sorted(map(_identity, whole))


def test_a_struct_defined_elsewhere_is_seen_from_a_function_parsed_alone() -> None:
    """A finder that looks up a declaration outside the edited function (the struct a tile shuffle's value has)
    reads the rest of the file from its tree, edited, not from the function's own."""
    text = (
        "#include <cooperative_groups.h>\n"
        "namespace cg = cooperative_groups;\n\n"
        "struct pair_of { uint2 lo; float w; };\n\n"
        "__global__ void swap(pair_of *p) {\n"
        "  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());\n"
        "  pair_of mine = p[threadIdx.x];\n"
        "  mine.lo = tile.shfl_xor(mine.lo, 1);\n"
        "}\n"
    )
    engine = Engine(Settings(target="hip"))
    session = Session(engine, Path("swap.cu"), text.encode(), "c")
    session.analyse()
    before = [f.rule for f in session.findings]
    assert "CP1023" in before
    _typed(session, b"  mine.lo =", b"  int unused = 0;\n")
    assert session.analyse(local_first=True).mode == "local"
    assert "CP1023" in [f.rule for f in session.findings]
    assert session.settle() is False


BLOCKS = """#include <cuda_runtime.h>

#if defined(USE_ROCM)
constexpr int kLanes = 64;
#else
constexpr int kLanes = 32;
#endif

#ifdef USE_ROCM
typedef int stream_id;
#endif

void run(float *d) {
  cudaFree(d);
}
"""


@pytest.mark.parametrize(
    ("after", "typed"),
    [
        (b"constexpr int kLanes = 32;", b"\n"),  # the last declaration of an #else branch
        (b"constexpr int kLanes = 64;", b"  // lanes"),  # before the `#else` line
        (b"#endif\n\n", b"int lanes_seen = 0;\n"),  # between two #if blocks
        (b"typedef int stream_id;\n#endif\n", b"\n"),  # after a block, before a function
        (b"typedef int stream_id;\n#endif", b"\n"),  # a line break at the end of an `#endif` line
    ],
)
def test_edits_at_the_edges_of_conditional_blocks_are_analysed_alone(after: bytes, typed: bytes) -> None:
    """An `#if`, `#else` or `#endif` line takes in nothing typed on the lines around it: an edit there needs no
    more of the file than the declarations beside it."""
    engine = Engine(Settings(target="hip"))
    session = Session(engine, Path("blocks.cu"), BLOCKS.encode(), "c")
    session.analyse()
    at = session.data.index(after) + len(after)
    session.edit(at, at, typed)
    assert session.analyse(local_first=True).mode == "local"
    assert session.settle() is False
    whole, _ = engine.check_data(session.data, "c", session.path)
    assert sorted(map(_identity, session.findings)) == sorted(map(_identity, whole))
    session.edit(at, at + len(typed), b"")  # erased again
    assert session.analyse(local_first=True).mode == "local"
    assert session.settle() is False


@pytest.mark.parametrize(
    ("after", "typed", "local"),
    [
        (b"#ifdef USE_ROCM", b"_BUILD", True),  # another condition: the block's findings, from its text alone
        (b"#else", b" // CUDA", True),
        (b"typedef int stream_id;\n#endif", b"x", False),  # `#endifx`: the block takes in what follows it
    ],
)
def test_a_directive_edited_is_analysed_with_its_block_alone_unless_it_reshapes_the_file(
    after: bytes, typed: bytes, local: bool
) -> None:
    engine = Engine(Settings(target="hip"))
    session = Session(engine, Path("blocks.cu"), BLOCKS.encode(), "c")
    session.analyse()
    at = session.data.index(after) + len(after)
    session.edit(at, at, typed)
    assert (session.analyse(local_first=True).mode == "local") == local
    session.settle()
    whole, _ = engine.check_data(session.data, "c", session.path)
    assert sorted(map(_identity, session.findings)) == sorted(map(_identity, whole))
    session.edit(at, at + len(typed), b"")
    session.analyse(local_first=True)
    session.settle()
    whole, _ = engine.check_data(session.data, "c", session.path)
    assert sorted(map(_identity, session.findings)) == sorted(map(_identity, whole))
