"""Python sources: the analyzer (analyzer) composing its passes over one per-file state (filestate): the words worth
a look (vocabulary), import statements (importfindings), uses of APIs and libraries (apis), methods (methods),
strings and extension calls (literals) and what a ranged analysis looks up outside its windows (outsidewindows),
all building findings one way (findingbuilder), over the file's imports (imports), dotted chains (chains), string
positions (strings), build arguments (buildargs) and ranged windows (windows). Code already written for the target
is reviewed in its surroundings (ported, over one file under review: reviewedfile, portedknowledge): dual-stack code
(alreadyported) and device abstractions (abstractions), twins of statements (twins), tables of devices without the
target (devicetables), probes of CUDA-only paths (cudaonly), optional imports (optionalimports) and one device per
line (onedevice), over the branches of `if` statements (branches). Dual-stack fixes (dualstack), and the file's own
names for judging a fix (names). May import: analyzers.inventory, analyzers.common and below."""
