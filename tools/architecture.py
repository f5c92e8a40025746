"""The shape of the package, as its imports draw it: modules per package, import circles, imports that run up a
layer, and the longest functions and classes.

    .venv/bin/python tools/architecture.py [--root server/cudaport] [--rename old=new ...]

Every import counts, at the top of a module or inside a function. The layers are those of the import contract in
pyproject.toml ([tool.importlinter]); --rename maps module names of another tree onto them (to measure an older
layout against the same layers)."""

from __future__ import annotations

import argparse
import ast
import sys
from collections import defaultdict
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]


def modules(root: Path) -> dict[str, Path]:
    package = root.name
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join([package, *parts])] = path
    return out


def imports(found: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in found.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                targets = [module, *(f"{module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for target in targets:
                if target in found and target != name:
                    graph[name].add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on.add(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for node in list(graph):
        if node not in index:
            visit(node)
    return out


def layers() -> list[list[str]]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract.get("type") == "layers" and contract.get("id") == "layers":
            return [[part.strip() for part in layer.replace(":", "|").split("|")] for layer in contract["layers"]]
    raise SystemExit("no layers contract with id 'layers' in pyproject.toml")


def layer_of(module: str, order: list[list[str]]) -> int | None:
    for rank, packages in enumerate(order):
        if any(module == p or module.startswith(p + ".") for p in packages):
            return rank
    return None


def longest(found: dict[str, Path], count: int) -> list[tuple[int, str]]:
    sizes = []
    for name, path in found.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                kind = "class" if isinstance(node, ast.ClassDef) else "def"
                sizes.append((node.end_lineno - node.lineno + 1, f"{kind} {name}.{node.name}"))
    return sorted(sizes, reverse=True)[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=REPO / "server" / "cudaport")
    parser.add_argument("--rename", action="append", default=[], help="old.module=new.module, for another layout")
    parser.add_argument("--longest", type=int, default=12)
    args = parser.parse_args()
    found = modules(args.root)
    graph = imports(found)
    renames = dict(pair.split("=", 1) for pair in args.rename)
    order = layers()

    def placed(module: str) -> str:
        best = max((old for old in renames if module == old or module.startswith(old + ".")), key=len, default=None)
        return renames[best] + module[len(best) :] if best is not None else module

    per_package: dict[str, int] = defaultdict(int)
    for name in found:
        per_package[name.rsplit(".", 1)[0] if name.count(".") else name] += 1
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in found.values())
    print(f"{len(found)} modules, {lines} lines")
    print("modules per package: " + ", ".join(f"{p} {n}" for p, n in sorted(per_package.items())))
    found_circles = circles(graph)
    print(f"import circles: {len(found_circles)}")
    for circle in found_circles:
        print("  " + " <-> ".join(m.removeprefix("cudaport.") for m in circle))
    upward = []
    for source, targets in sorted(graph.items()):
        here = layer_of(placed(source), order)
        for target in sorted(targets):
            there = layer_of(placed(target), order)
            if here is not None and there is not None and there < here:
                upward.append((source, target))
    print(f"imports that run up a layer: {len(upward)}")
    for source, target in upward:
        print(f"  {source.removeprefix('cudaport.')} -> {target.removeprefix('cudaport.')}")
    print("longest:")
    for size, what in longest(found, args.longest):
        print(f"  {size:5} lines  {what.replace('cudaport.', '', 1)}")


if __name__ == "__main__":
    main()
