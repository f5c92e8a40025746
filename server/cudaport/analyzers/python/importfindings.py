"""Findings at a Python file's import statements (`import torch.cuda as tc`, `from cupy import ...`, a library
reported at its import), the edits that rewrite a statement as a whole or not at all, and the alias imports kept
because some use cannot follow their rewrite."""

from __future__ import annotations

from ...i18n import t
from ...knowledge.python import PythonKnowledge, TargetFacts
from ...knowledge.ruleset import RuleSet, Symbol
from ...model.findings import Applicability, Difficulty, Edit, Fix
from .filestate import AliasRewrite, FileState
from .findingbuilder import FindingBuilder, WrittenSpan
from .imports import ImportedName, ImportStatement, spelled
from .vocabulary import Vocabulary

# What each name of a `from` statement becomes: the name, its symbol (None: nothing to report) and its new path.
_Plan = tuple[ImportedName, Symbol | None, list[str]]


class ImportFindings:
    """The findings of the import statements that import something the rule data knows."""

    def __init__(
        self, ruleset: RuleSet, know: PythonKnowledge, vocabulary: Vocabulary, builder: FindingBuilder
    ) -> None:
        self.ruleset = ruleset
        self.know = know
        self.vocabulary = vocabulary
        self.builder = builder

    def find(self, file: FileState) -> None:
        for statement in file.imports.statements:
            if not self.vocabulary.notes(statement.facts, file.target).mentions_known:
                continue
            if statement.is_from:
                self._from_statement(file, statement)
            else:
                self._import_statement(file, statement)

    def _import_statement(self, file: FileState, statement: ImportStatement) -> None:
        for name in statement.names:
            path = spelled(name)
            match = self.know.match(path)
            if match is None:
                continue
            entry, size = match
            if entry.report == "use" or (entry.report == "import" and file.context.is_own_module(path[0])):
                continue  # a library's own code (flash-attn importing flash_attn) is not a dependency on it
            if entry.report == "import":
                file.reported_imports.add(entry.name)
            qualified = ".".join(path[:size])
            edits: list[Edit] | None = None
            rendered = entry.render(qualified, file.target)
            facts = self.know.targets.get(file.target)
            # `import torch.cuda.amp` binds `torch`: only aliased or two-part imports keep their binding when rewritten
            rewritable = size == len(path) and (name.alias or len(path) <= 2)
            start, end = statement.span(name)
            if rendered is not None and rendered != qualified and rewritable and facts is not None:
                edits = [Edit(start, end, facts.import_path(rendered))]
            symbol = entry.symbol(qualified, file.target)
            finding = self.builder.finding(file, symbol, WrittenSpan(start, end), edits, {"kind": "import"})
            file.add(finding)
            if name.alias and edits and rendered is not None:
                file.alias_edits[name.local] = AliasRewrite(tuple(edits), tuple(rendered.split(".")))

    def _from_statement(self, file: FileState, statement: ImportStatement) -> None:
        module = statement.facts.module
        if module is None:
            return
        module_start, module_end = statement.module_span()
        facts = self.know.targets.get(file.target)
        module_match = self.know.match(module)
        if module_match is not None and (statement.facts.wildcard or module_match[0].report == "import"):
            entry, size = module_match
            if entry.report == "use" or (entry.report == "import" and file.context.is_own_module(module[0])):
                return
            file.reported_imports.add(entry.name)
            qualified = ".".join(module[:size])
            rendered = entry.render(qualified, file.target)
            edits = None
            if rendered is not None and rendered != qualified and size == len(module) and facts is not None:
                edits = [Edit(module_start, module_end, facts.import_path(rendered))]
            module_symbol = entry.symbol(qualified, file.target)
            written = WrittenSpan(module_start, module_end)
            file.add(self.builder.finding(file, module_symbol, written, edits, {"kind": "import"}))
            return
        # one finding per imported name; the statement is rewritten as a whole or not at all
        plans: list[_Plan] = []
        for name in statement.names:
            match = self.know.match(name.qualified)
            if match is None or match[1] < len(name.qualified) or match[0].report == "use":
                plans.append((name, None, name.qualified))
                continue
            entry, _ = match
            qualified = ".".join(name.qualified)
            rendered = entry.render(qualified, file.target)
            if entry.report == "import":
                file.reported_imports.add(entry.name)
            plans.append((name, entry.symbol(qualified, file.target), rendered.split(".") if rendered else []))
        reported = [(name, symbol, new) for name, symbol, new in plans if symbol is not None]
        if not reported:
            return
        outcomes = [self.ruleset.outcome(symbol, file.target) for _, symbol, _ in reported]
        edits = _from_edits(module, statement, plans, facts)
        safe = all(outcome.difficulty <= Difficulty.MECHANICAL for outcome in outcomes)
        for name, reported_symbol, _ in reported:
            assert reported_symbol is not None
            written = WrittenSpan(*statement.span(name))
            finding = self.builder.finding(
                file, reported_symbol, written, edits, {"kind": "import"}, force_unsafe=not safe
            )
            file.add(finding)
        if edits:
            for name, symbol, new in plans:
                if symbol is not None:
                    file.alias_edits[name.local] = AliasRewrite(tuple(edits), tuple(new))


def _from_edits(
    module: list[str], statement: ImportStatement, plans: list[_Plan], facts: TargetFacts | None
) -> list[Edit] | None:
    """The edits of a `from` statement all of whose reported names move to one new module; None when they do not."""
    if any(not new for _, _, new in plans) or facts is None:
        return None
    modules = {tuple(new[:-1]) for _, _, new in plans}
    if len(modules) != 1:
        return None
    new_module = list(modules.pop())
    edits: list[Edit] = []
    if new_module != module:
        import_path = facts.import_path(".".join(new_module))
        edits.append(Edit(*statement.module_span(), import_path))
    for name, _, new in plans:
        member = new[-1]
        if member == name.qualified[-1]:
            continue
        replacement = member if name.alias else f"{member} as {name.written}"
        edits.append(Edit(*statement.span(name), replacement))
    return edits or None


def hold_shared_imports(file: FileState) -> None:
    """An alias whose import would be rewritten while some of its uses cannot follow (`tc.CUDAGraph()` on npu)
    keeps its import: rewriting it would hide those uses from the next check. Every fix that carries the import's
    edit becomes unsafe, and its finding manual."""
    for local, rewrite in file.alias_edits.items():
        uses = file.alias_uses.get(local, [])
        if all(use.fix is not None and use.fix.is_safe for use in uses):
            continue
        held = set(rewrite.edits)
        for finding in file.findings:
            fix = finding.fix
            if fix is None or not fix.is_safe or not held.intersection(fix.edits):
                continue
            finding.fix = Fix(fix.title, fix.edits, Applicability.UNSAFE)
            if finding.difficulty <= Difficulty.MECHANICAL:
                finding.difficulty = Difficulty.MANUAL
                finding.message = t(
                    "{message}; `{name}` is also used for APIs that need a person, so its import is kept",
                    message=finding.message,
                    name=local,
                )
