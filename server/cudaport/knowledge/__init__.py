"""The rule data, loaded: rules/ (symbols, rules, targets and their versions, calls, PTX, headers), read and cached
compiled (ruleset, rulecache), the kinds of file (filekinds), the Python API tables (python), the effort weights
(effort). Everything cudaport knows about CUDA and the targets is data here; the code that matches it is in the
analyzers. May import: model, i18n, resources."""
