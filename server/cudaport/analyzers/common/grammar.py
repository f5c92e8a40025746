"""A grammar wheel's compiled module (`tree_sitter_python._binding`), loaded without running its package's
`__init__`: most grammar wheels import importlib.resources there to read their highlighting queries on request,
which cudaport never asks for, and that import (with tempfile, shutil, random and zipfile behind it) costs more
than loading the grammar itself. Should a wheel lay itself out differently, the package is imported as usual."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from importlib.machinery import PathFinder
from types import ModuleType


def grammar_module(package: str) -> ModuleType:
    """The module whose `language()` hands over `package`'s grammar: its `_binding` extension, else the package."""
    name = f"{package}._binding"
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    try:
        spec = importlib.util.find_spec(package)  # a top-level name: found, not imported
        locations = spec.submodule_search_locations if spec is not None else None
        binding = PathFinder.find_spec(name, list(locations)) if locations else None
        if binding is None or binding.loader is None:
            return importlib.import_module(package)
        module = importlib.util.module_from_spec(binding)
        binding.loader.exec_module(module)
    except (ImportError, OSError):
        return importlib.import_module(package)
    if not callable(getattr(module, "language", None)):
        return importlib.import_module(package)
    sys.modules[name] = module  # the package's own `from ._binding import language`, if it is imported, gets it
    return module
