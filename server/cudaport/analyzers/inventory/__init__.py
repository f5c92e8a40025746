"""The project's CUDA inventory beyond its sources: build files, dependency manifests, containers, launch
scripts, configurations, Cython and shipped binaries (notebooks, whose cells are Python, are analyzers.notebook's).
One small analyzer per file kind; the knowledge is rules/inventory.toml (and the environment variables and
programs of rules/python.toml). May import: analyzers.common and below."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

# engine language -> "module:class" (imported on first use: a run over sources never loads these grammars)
ANALYZERS = {
    "cmake": "cmake:CMakeAnalyzer",
    "make": "make:MakeAnalyzer",
    "shell": "shell:ShellAnalyzer",
    "dockerfile": "dockerfile:DockerfileAnalyzer",
    "requirements": "requirements:RequirementsAnalyzer",
    "setupcfg": "requirements:SetupCfgAnalyzer",
    "toml": "config:TomlAnalyzer",
    "yaml": "config:YamlAnalyzer",
    "json": "config:JsonAnalyzer",
    "cython": "cython:CythonAnalyzer",
    "elf": "elf:ElfAnalyzer",
}


def factory(language: str) -> Callable[[Any], Any]:
    module_name, class_name = ANALYZERS[language].split(":")

    def build(ruleset: Any) -> Any:
        module = import_module(f"{__name__}.{module_name}")
        return getattr(module, class_name)(ruleset)

    return build
