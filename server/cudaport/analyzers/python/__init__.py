"""Python sources: the analyzer (analyzer) over the file's imports (imports), string positions (strings), build
arguments (buildargs), ranged windows (windows); code already written for the target reviewed in its
surroundings (ported), dual-stack fixes (dualstack), and the file's own names for judging a fix (names). May
import: analyzers.inventory, analyzers.common and below."""
