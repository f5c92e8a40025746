"""Which tree-sitter grammar to parse C/C++/CUDA with: tree-sitter-cuda against tree-sitter-cpp, per file kind, on
real code, side by side in one run.

    .venv/bin/python bench/bench_grammars.py [--rounds 3]

Prints, per file suffix and grammar: files, MB/s and the share of files whose tree has an ERROR or MISSING node.
cudaport parses every C-family file with tree-sitter-cuda, a superset of the C++ grammar; this script is the
measurement behind that choice (tree-sitter-cpp is a development dependency, used only here).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

import tree_sitter_cpp
import tree_sitter_cuda
from tree_sitter import Language, Parser

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import SDISTS, c_files, fetch

GRAMMARS = {"cuda": Language(tree_sitter_cuda.language()), "cpp": Language(tree_sitter_cpp.language())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    by_suffix: dict[str, list[bytes]] = defaultdict(list)
    for name in SDISTS:
        for path in c_files(fetch(name)):
            by_suffix[path.suffix.lower()].append(path.read_bytes())
    parsers = {name: Parser(language) for name, language in GRAMMARS.items()}
    print(f"{'suffix':8} {'files':>6} {'MB':>6}   " + "   ".join(f"{g:>4}: MB/s  errors" for g in parsers))
    for suffix, sources in sorted(by_suffix.items(), key=lambda item: -len(item[1])):
        size = sum(map(len, sources)) / 1e6
        cells = []
        for grammar, grammar_parser in parsers.items():
            best = float("inf")
            errors = 0
            for _ in range(args.rounds):
                errors = 0
                start = time.perf_counter()
                for source in sources:
                    errors += grammar_parser.parse(source).root_node.has_error
                best = min(best, time.perf_counter() - start)
            cells.append(f"{grammar:>4}: {size / best:5.1f}  {errors / len(sources):6.1%}")
        print(f"{suffix:8} {len(sources):6} {size:6.1f}   " + "   ".join(cells))


if __name__ == "__main__":
    main()
