"""`cudaport rule`: one rule, every rule, the generated rules/RULES.md, and the rule data's own consistency."""

from __future__ import annotations

import json

from conftest import REPO, Cli
from cudaport.analyzers.c.calls import load_call_rewrites
from cudaport.knowledge import tomlcompat
from cudaport.knowledge.ruleset import load_ruleset

SECTIONS = ("What it does", "Why it matters", "Example", "Fix safety")
# Rules that analyzers raise from patterns rather than from name tables.
# Rules raised by analyzer code rather than by a row of the rule data: C patterns, and the Python analyzer's
# device strings (CP7010), env-var defaults (CP7030) and Ascend's unsupported-API list (CP7090).
PATTERN_RULES = {"CP1007", "CP1009", "CP1021", "CP1022", "CP1023", "CP1030", "CP1031", "CP1032", "CP1033",
                 "CP1034", "CP1035", "CP2004", "CP2005", "CP2006", "CP3001", "CP4002", "CP7010", "CP7030",
                 "CP7090"}  # fmt: skip
# raised from rules/operators/ (the plugins' operator lists), not from a table naming the rule
DATA_RULES = {"CP7100"}


def _rules_named_in(table: object) -> set[str]:
    """Every `rule = "CPxxxx"` anywhere in an analyzer table (rules/python.toml nests them)."""
    if isinstance(table, dict):
        found = {str(v) for k, v in table.items() if k == "rule" and isinstance(v, str)}
        return found.union(*(_rules_named_in(v) for v in table.values()))
    if isinstance(table, list):
        return set().union(*(_rules_named_in(v) for v in table))
    return set()


def _codes_in_rules_toml() -> list[str]:
    data = tomlcompat.loads((REPO / "rules" / "rules.toml").read_text(encoding="utf-8"))
    return [entry["code"] for entry in data["rule"]]


def test_rule_explains_what_why_example_and_fix_safety(cli: Cli) -> None:
    result = cli("rule", "CP1001")
    assert result.code == 0
    lines = result.out.splitlines()
    assert (
        lines[0] == "CP1001 (cuda-runtime-api): CUDA runtime API: functions, types, enums, macros and headers of cudart"
        " (→ HIP, ACL, CNRT)"
    )
    assert "  hip: mechanical / blocker" in lines
    for section in SECTIONS:
        assert f"## {section}" in lines
    assert "cudaMalloc(&d, n * sizeof(float)); // → hipMalloc(&d, n * sizeof(float));" in result.out
    assert cli("rule", "cp2001").out.startswith("CP2001 (warp-shuffle-sync): ")  # case does not matter


def test_rule_errors(cli: Cli) -> None:
    unknown = cli("rule", "CP9999")
    assert unknown.code == 2
    assert unknown.err == "cudaport: error: unknown rule 'CP9999' (`cudaport rule --all` lists them)\n"
    missing = cli("rule")
    assert missing.code == 2
    assert "give a rule code (such as CP1001) or --all" in missing.err


def test_rule_all_lists_every_rule(cli: Cli) -> None:
    codes = _codes_in_rules_toml()
    text = cli("rule", "--all")
    assert text.code == 0
    assert [line.split()[0] for line in text.out.splitlines()] == codes
    as_json = json.loads(cli("rule", "--all", "--format", "json").out)
    assert [r["code"] for r in as_json] == codes
    for rule in as_json:
        assert set(rule["docs"]) == {"what", "why", "example", "fix"}
        assert rule["difficulty"]["hip"] in ("portable", "mechanical", "manual", "blocker")
    markdown = cli("rule", "CP4001", "--format", "markdown").out
    assert markdown.startswith("## CP4001: wmma-api\n")


def test_the_chinese_rules_md_is_what_rule_all_generates_in_chinese(cli: Cli) -> None:
    generated = cli("rule", "--all", "--format", "markdown", "--lang", "zh-CN").out
    committed = (REPO / "rules" / "RULES.zh-CN.md").read_text(encoding="utf-8")
    assert committed == generated, (
        "rules/RULES.zh-CN.md is stale: cudaport rule --all --format markdown --lang zh-CN > rules/RULES.zh-CN.md"
    )
    assert committed.startswith("# cudaport 规则\n")
    assert "| [CP1001](#cp1001) | cuda-runtime-api | 运行时 API |" in committed


def test_rules_md_is_what_rule_all_generates(cli: Cli) -> None:
    generated = cli("rule", "--all", "--format", "markdown").out
    committed = (REPO / "rules" / "RULES.md").read_text(encoding="utf-8")
    assert committed == generated, "rules/RULES.md is stale: cudaport rule --all --format markdown > rules/RULES.md"
    for code in _codes_in_rules_toml():
        assert f'<a id="{code.lower()}"></a>' in committed
        assert f"| [{code}](#{code.lower()}) |" in committed


def test_every_rule_has_all_four_doc_sections() -> None:
    for rule in load_ruleset().rules.values():
        docs = {"what": rule.docs.what, "why": rule.docs.why, "example": rule.docs.example, "fix": rule.docs.fix}
        assert all(len(text.strip()) > 10 for text in docs.values()), (rule.code, docs)
        assert rule.subject and rule.summary and rule.name
        assert "hip" in rule.difficulty and "hip" in rule.unmapped, rule.code


def test_every_rule_the_data_names_exists_and_every_rule_can_fire() -> None:
    ruleset = load_ruleset()
    tables = [
        ruleset.symbols.values(),
        ruleset.prefixes,
        ruleset.headers.values(),
        ruleset.header_globs,
        ruleset.namespaces.values(),
    ]
    referenced = {symbol.rule for table in tables for symbol in table}
    ptx = ruleset.tables["ptx"]["ptx"]
    referenced |= {entry["rule"] for entry in ptx}
    referenced |= _rules_named_in(ruleset.tables["python"])
    referenced |= _rules_named_in(ruleset.tables["inventory"])
    assert referenced <= set(ruleset.rules)
    assert ruleset.operators is not None and any(c.gaps for c in ruleset.operators.coverages.values())
    assert set(ruleset.rules) - referenced - PATTERN_RULES - DATA_RULES == set(), "rules that nothing can raise"
    for (symbol, target), _call in load_call_rewrites(ruleset.tables["calls"]).items():
        assert ruleset.symbol(symbol) is not None, f"calls.toml rewrites {symbol}, which no symbol table knows"
        assert target in ruleset.targets


def test_every_rule_is_in_one_inventory_area(cli: Cli) -> None:
    """The report groups findings by the areas of rules.toml: none of the bundled rules falls outside them, and
    `cudaport rule` names a rule's area."""
    ruleset = load_ruleset()
    listed = [code for area in ruleset.areas for code in area.rules]
    assert sorted(listed) == sorted(ruleset.rules)
    assert len(listed) == len(set(listed))
    assert [a.name for a in ruleset.areas] == [
        "framework API",
        "runtime API",
        "libraries",
        "hand-written kernels",
        "build and environment",
        "binaries",
    ]
    assert "Area: binaries" in cli("rule", "CP9001").out
