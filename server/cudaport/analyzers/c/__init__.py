"""C, C++ and CUDA sources: the analyzer (analyzer) over one scan of the buffer (scan), the preprocessor's
conditions and shims (preprocessor), whole-call rewrites (calls), inline PTX (ptx), warp-size code (warp), kernels
and launches (kernels), pointers (pointers), vector operations (vectorops), what nvcc and clang read differently
(clangdiff), and the file's own names for judging a fix (names). May import: analyzers.common and below."""
