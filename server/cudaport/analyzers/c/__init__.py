"""C, C++ and CUDA sources: the analyzer and the names of the rule data it finds (analyzer), over one scan of the
buffer (scan); what an edit can change (incremental); headers, the runtime include nvcc adds and explicit
initialisation (includes), over the file's include lines (includelines); whole-call rewrites (calls) at their call
sites (callsites); renames (renames); dual-stack fixes (dualfixes); code already written for the target (ported);
overloads the renames would merge (overloads); the preprocessor's conditions and shims (preprocessor), inline PTX
(ptx), warp-size code (warp), kernels and launches (kernels), pointers (pointers), vector operations (vectorops),
what nvcc and clang read differently (clangdiff), and the file's own names for judging a fix (names). May import:
analyzers.common and below."""
