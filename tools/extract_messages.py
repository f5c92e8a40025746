"""Write rules/locale/messages.pot: every English message cudaport shows, from the code and the rule data.

    python tools/extract_messages.py            # rewrite the template
    python tools/extract_messages.py --check    # exit 1 if the template's messages are out of date (CI)
    python tools/extract_messages.py --missing zh-CN   # list the messages zh-CN does not translate

From the code: the first argument of every t(), tn() and plural() (and its plural) and N_() call under
server/cudaport/ (an f-string or a variable there is an error: the catalogue could never hold it). From the rule
data: the fields that rules/locale/sources/*.toml declare as prose, in the TOML and CSV files it names (a [[toml]]
entry's optional `tables` reads only those top-level tables: for a key that is prose there and an identifier
elsewhere). The template's references say where each message comes from, so a translator can see it in place.
"""

from __future__ import annotations

import argparse
import ast
import csv
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from cudaport.i18n import read_catalogue  # noqa: E402
from cudaport.knowledge import tomlcompat as tomllib  # noqa: E402

CODE = ROOT / "server" / "cudaport"
RULES = ROOT / "rules"
LOCALE = RULES / "locale"
TEMPLATE = LOCALE / "messages.pot"
CALLS = {"t": 1, "tn": 2, "plural": 2, "N_": 1}  # function -> how many leading arguments are messages


@dataclass
class Message:
    msgid: str
    plural: str | None = None
    references: list[str] = field(default_factory=list)


@dataclass
class Extraction:
    messages: dict[str, Message] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def add(self, msgid: str, where: str, plural: str | None = None) -> None:
        if not msgid.strip():
            return
        entry = self.messages.setdefault(msgid, Message(msgid, plural))
        if plural and not entry.plural:
            entry.plural = plural
        if where not in entry.references:
            entry.references.append(where)


def _called(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "i18n":
        return func.attr
    return None


def from_code(extraction: Extraction, root: Path = CODE) -> None:
    for path in sorted(root.rglob("*.py")):
        if path.name == "i18n.py":
            continue
        relative = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = _called(node)
            if name not in CALLS or not node.args:
                continue
            where = f"{relative}:{node.lineno}"
            texts: list[str] = []
            for argument in node.args[: CALLS[name]]:
                if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                    texts.append(argument.value)
                elif name not in ("t", "plural"):  # a helper passing its arguments on
                    extraction.errors.append(f"{where}: {name}() needs a literal string, not {ast.unparse(argument)}")
            if texts:
                extraction.add(texts[0], where, texts[1] if len(texts) > 1 else None)
            elif isinstance(node.args[0], ast.JoinedStr):
                extraction.errors.append(
                    f"{where}: t() of an f-string cannot be translated; use fields: t('...', x=...)"
                )


def _toml_strings(
    value: object, keys: set[str], key: str | None, path: str, parent: str | None = None
) -> Iterator[tuple[str, str]]:
    """The strings under `keys`: a key's name (`note`), or `table.key` for a key of one table only (`counterpart.npu`,
    `counterpart.*` for every key of it; a list of tables counts by its name: `ptx.name`)."""
    if isinstance(value, dict):
        for name, inner in value.items():
            yield from _toml_strings(inner, keys, name, f"{path}.{name}" if path else name, key)
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            label = next((inner[k] for k in ("code", "id") if isinstance(inner, dict) and k in inner), index)
            yield from _toml_strings(inner, keys, key, f"{path}[{label}]", parent)
    elif isinstance(value, str) and (key in keys or f"{parent}.{key}" in keys or f"{parent}.*" in keys):
        yield value, path


def from_data(extraction: Extraction, rules: Path = RULES) -> None:
    files = sorted((rules / "locale" / "sources").glob("*.toml"))
    specs = [tomllib.loads(p.read_text(encoding="utf-8")) for p in files]
    for entry in (e for spec in specs for e in spec.get("toml", [])):
        keys = set(entry["keys"])
        tables = entry.get("tables")  # only these top-level tables, when a key is prose there but not elsewhere
        prose_only = bool(entry.get("prose-only", False))
        for path in sorted(rules.glob(entry["files"])):
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            if tables is not None:
                data = {name: data[name] for name in tables if name in data}
            relative = path.relative_to(rules.parent).as_posix()
            for text, where in _toml_strings(data, keys, None, ""):
                if prose_only and not any(c.isspace() for c in text.strip()):
                    continue  # a name or a code beside the prose (`%laneid` among PTX names)
                extraction.add(text, f"{relative}:{where}")
    for entry in (e for spec in specs for e in spec.get("csv", [])):
        columns = set(entry["columns"])
        for path in sorted(rules.glob(entry["files"])):
            relative = path.relative_to(rules.parent).as_posix()
            with path.open(encoding="utf-8", newline="") as handle:
                for number, row in enumerate(csv.DictReader(handle), 2):
                    for column in columns & set(row):
                        if row[column]:
                            extraction.add(row[column], f"{relative}:{number}")


def extract() -> Extraction:
    extraction = Extraction()
    from_code(extraction)
    from_data(extraction)
    return extraction


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t").replace("\r", "\\r")
    lines = escaped.split("\n")
    if len(lines) == 1:
        return f'"{lines[0]}"'
    parts = [line + "\\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    return '""\n' + "\n".join(f'"{part}"' for part in parts)


def render_template(extraction: Extraction) -> str:
    out = [
        "# cudaport's messages: the English text is the key. Generated by tools/extract_messages.py; do not edit.",
        'msgid ""',
        'msgstr ""',
        '"Content-Type: text/plain; charset=UTF-8\\n"',
        "",
    ]
    for message in sorted(extraction.messages.values(), key=lambda m: m.msgid):
        refs = message.references[:3] + (
            [f"(+{len(message.references) - 3} more)"] if len(message.references) > 3 else []
        )
        out.extend(f"#: {ref}" for ref in refs)
        out.append(f"msgid {_quote(message.msgid)}")
        if message.plural:
            out.append(f"msgid_plural {_quote(message.plural)}")
            out.append('msgstr[0] ""')
        else:
            out.append('msgstr ""')
        out.append("")
    return "\n".join(out)


def missing(extraction: Extraction, language: str) -> list[Message]:
    catalogue = read_catalogue(language, LOCALE)
    return [m for m in extraction.messages.values() if m.msgid not in catalogue]


def _entries(template: str) -> list[str]:
    """A template's msgid and msgid_plural lines, in order (its references and comments left out)."""
    return [line for line in template.splitlines() if line and not line.startswith("#")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if messages.pot is out of date")
    parser.add_argument("--missing", metavar="LANG", help="list the messages LANG's catalogues lack")
    args = parser.parse_args(argv)
    extraction = extract()
    for error in extraction.errors:
        print(error, file=sys.stderr)
    if args.missing:
        absent = missing(extraction, args.missing)
        for message in absent:
            print(f"{message.references[0]}: {message.msgid[:100]!r}")
        print(f"{len(absent)} of {len(extraction.messages)} messages missing in {args.missing}", file=sys.stderr)
        return 1 if absent or extraction.errors else 0
    text = render_template(extraction)
    if args.check:
        # The messages, not the references: code moving within a file leaves the template as good as it was.
        current = TEMPLATE.read_text(encoding="utf-8") if TEMPLATE.exists() else ""
        if _entries(current) != _entries(text):
            print(f"{TEMPLATE.relative_to(ROOT)} is out of date: run python tools/extract_messages.py", file=sys.stderr)
            return 1
        return 1 if extraction.errors else 0
    TEMPLATE.parent.mkdir(parents=True, exist_ok=True)
    TEMPLATE.write_text(text, encoding="utf-8")
    print(f"{len(extraction.messages)} messages -> {TEMPLATE.relative_to(ROOT)}", file=sys.stderr)
    return 1 if extraction.errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
