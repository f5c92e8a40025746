"""Findings at Python string literals, decided by where the string stands (read by `strings`): device types
(`"cuda:0"`), distributed backends (`"nccl"`), CUDA environment variables, commands of CUDA tools, and the
extension calls that build CUDA sources (a `.cu` file name, `cuda_sources=`)."""

from __future__ import annotations

from tree_sitter import Node

from ...i18n import t
from ...knowledge.python import CommandEntry, EnvEntry, PythonKnowledge
from ...knowledge.ruleset import Symbol, TargetMapping
from ...model.findings import Difficulty, Edit
from . import strings
from .chains import chain_of, enclosing_call
from .filestate import FileState
from .findingbuilder import FindingBuilder

_EXTENSION_RULE = "CP7040"


class LiteralFindings:
    """The findings of strings and of the extension calls they are passed to."""

    def __init__(self, know: PythonKnowledge, builder: FindingBuilder) -> None:
        self.know = know
        self.builder = builder

    def string(self, file: FileState, string: Node) -> None:
        """A string in a position that reads it: a command, an environment variable, a device type, a backend."""
        literal = strings.literal(file.data, string)
        if literal is None:
            return
        facts = self.know.targets.get(file.target)
        if self.know.commands:
            program = strings.command_program(file.data, string, self.know.command_calls, file.imports)
            command = self.know.commands.get(program) if program is not None else None
            if command is not None:
                self._command(file, string, command)
                return
        env = self.know.env(literal.content) if not literal.formatted else None
        if env is not None and strings.is_env_key(string, file.imports):
            self._env(file, string, literal, env)
            return
        if strings.DEVICE.match(literal.content) and literal.content.split(":")[0] in self.know.device_types:
            if strings.in_position(string, self.know.device, file.imports):
                new_type = facts.device if facts is not None else "cuda"
                old_type = literal.content.split(":")[0]
                edit = Edit(literal.content_start, literal.content_start + len(old_type), new_type)
                self._literal_finding(file, string, literal, edit, "CP7010", "device string")
            return
        backend_spec = strings.is_backend_spec(literal.content) and not literal.formatted
        if backend_spec and strings.in_position(string, self.know.backend, file.imports):
            backend = facts.backend if facts is not None else "nccl"
            device = facts.device if facts is not None else "cuda"
            new = strings.rewrite_backend_spec(literal.content, backend, device, self.know.device_types)
            edit = Edit(literal.content_start, literal.content_end, new)
            self._literal_finding(file, string, literal, edit, "CP7020", "backend")

    def _literal_finding(
        self, file: FileState, string: Node, literal: strings.Literal, edit: Edit, rule: str, kind: str
    ) -> None:
        written = file.data[string.start_byte : string.end_byte].decode("utf-8", "replace")
        start = edit.start - string.start_byte
        end = edit.end - string.start_byte
        rewritten = written[:start] + edit.text + written[end:] if written.isascii() else None
        # PyTorch builds that keep the "cuda" device type and "nccl" run the string as it is.
        targets = {t: TargetMapping(written, None) for t, f in self.know.targets.items() if f.keeps_cuda}
        facts = self.know.targets.get(file.target)
        keeps = facts is None or facts.keeps_cuda
        if not keeps and rewritten is not None and rewritten != written:
            targets[file.target] = TargetMapping(rewritten, None)
        symbol = Symbol(written, kind, rule, "torch", targets)
        edits = [edit] if file.target in targets and not keeps else None
        file.add(self.builder.finding(file, symbol, string, edits, {"kind": kind.replace(" ", "_")}))

    def _env(self, file: FileState, string: Node, literal: strings.Literal, entry: EnvEntry) -> None:
        name = literal.content
        counterpart = entry.counterparts.get(file.target)
        replacement = entry.replacement(name, file.target)
        difficulty = counterpart.difficulty if counterpart is not None else None
        note = counterpart.note if counterpart is not None else ""
        check = entry.value_checks.get(file.target)
        if check == "ascending-ids":
            value = strings.assigned_value(file.data, string)
            if value is not None and not strings.ascending_ids(value):
                difficulty = Difficulty.MANUAL
                note = t("the value {value} does not parse as ascending ids: {note}", value=repr(value), note=t(note))
        targets = {file.target: TargetMapping(replacement or "", difficulty, note)}
        symbol = Symbol(name, "variable", entry.rule, "environment", targets)
        edits = None
        if replacement and replacement != name:
            edits = [Edit(literal.content_start, literal.content_end, replacement)]
        file.add(self.builder.finding(file, symbol, string, edits, {"kind": "environment"}, needs_module=False))

    def _command(self, file: FileState, string: Node, command: CommandEntry) -> None:
        file.add(self.builder.finding(file, command.symbol(), string, None, {"kind": "command"}, needs_module=False))

    def source_file(self, file: FileState, content: Node) -> None:
        """A `.cu` file name: the extension call it is passed to builds CUDA code."""
        call = enclosing_call(content)
        if call is not None:
            self.extension_call(file, call)

    def extension_call(self, file: FileState, call: Node) -> None:
        """A call that builds an extension from CUDA sources (`CUDAExtension(...)`, `load(..., cuda_sources=...)`)."""
        function = call.child_by_field_name("function")
        if function is None or (function.start_byte, function.end_byte) in file.seen:
            return
        links = chain_of(function)
        if links is None:
            return
        parts = [link.name for link in links]
        qualified = file.imports.resolve(parts) or parts
        name = ".".join(qualified)
        match = self.know.match(qualified)
        if match is not None and match[0].rule == _EXTENSION_RULE and match[1] == len(qualified):
            entry = match[0]
            if entry.when == "cuda-sources" and not strings.passes_cuda_sources(call):
                return
            file.add(self.builder.finding(file, entry.symbol(name, file.target), function, None, {"kind": "extension"}))
            return
        if not parts[-1].endswith("Extension") or not strings.passes_cuda_sources(call):
            return
        # Another extension class given CUDA sources: nothing hipifies them (only CUDAExtension is on ROCm).
        notes = {t: TargetMapping("", None, f.extension_note) for t, f in self.know.targets.items() if f.extension_note}
        symbol = Symbol(name, "extension", _EXTENSION_RULE, "torch", notes)
        file.add(self.builder.finding(file, symbol, function, None, {"kind": "extension"}))
