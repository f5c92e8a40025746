"""The tree-sitter grammar of C, C++ and CUDA that every C-side module parses with (tree-sitter-cuda)."""

from __future__ import annotations

import tree_sitter_cuda
from tree_sitter import Language

CUDA_LANGUAGE = Language(tree_sitter_cuda.language())
