"""cudaport: find, rate and rewrite CUDA dependencies for HIP (ROCm, DCU), Ascend NPU, Cambricon MLU, MetaX, Iluvatar
and Moore Threads.

The packages, top to bottom (docs/architecture.md draws them; each imports only from those below it, which
tests/test_architecture.py checks): cli, lsp (the front ends); report, rewrite; engine; project; analyzers;
knowledge; model; i18n; resources."""

__version__ = "0.1.0"
