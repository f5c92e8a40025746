"""One analyzer per kind of file, each finding CUDA dependencies in a buffer and its syntax tree: C/C++/CUDA (c),
Python (python), notebooks (notebook), the inventory of build files, manifests, containers, scripts, configs and
binaries (inventory), over what they share (common: the Analyzer protocol, the file's context, syntax helpers,
comments and suppressions, names for judging a fix). May import: knowledge, model, i18n, resources; c and python
never each other, inventory neither of them."""
