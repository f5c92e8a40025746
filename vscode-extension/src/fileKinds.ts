// The text files cudaport checks, as one glob for vscode.workspace.findFiles: the suffixes, names and globs of the
// text kinds in rules/files.toml (a unit test keeps the two in step). Sources come first: when a workspace has
// more files than a check reads, those are the ones read.
export const SOURCE_PATTERNS = [
  "*.cu", "*.cuh", "*.c", "*.cc", "*.cpp", "*.cxx", "*.c++", "*.h", "*.hh", "*.hpp", "*.hxx", "*.inl", "*.inc",
  "*.py", "*.pyi", "*.pyx", "*.pxd", "*.pxi",
];
export const INVENTORY_PATTERNS = [
  "*.ipynb", "*.cmake", "CMakeLists.txt", "*.mk", "Makefile", "GNUmakefile", "Makefile.*", "*.make",
  "*.sh", "*.bash", "*.zsh", "*.slurm", "*.sbatch", "*.pbs",
  "Dockerfile", "Containerfile", "*.dockerfile", "*.containerfile", "Dockerfile.*", "Containerfile.*", "*.Dockerfile",
  "requirements*.txt", "requirements*.in", "constraints*.txt", "*-requirements.txt", "*_requirements.txt",
  "requirements/*.txt", "requirements/*.in", "pyproject.toml", "Pipfile", "setup.cfg",
  "*.yaml", "*.yml", "*.json", "*.jsonc",
];

export function globOf(patterns: readonly string[]): string {
  return `**/{${patterns.join(",")}}`;
}

// Folders no one edits by hand: tools, environments and caches.
export const SKIPPED_FOLDERS = "**/{.git,.hg,.svn,node_modules,.venv,venv,.tox,.nox,__pycache__,.mypy_cache,.ruff_cache}/**";

/** Sources before the other kinds, each group in path order (findFiles gives no order). */
export function sourcesFirst(paths: readonly string[]): string[] {
  const isSource = (path: string) => {
    const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
    return SOURCE_PATTERNS.some((pattern) => name.endsWith(pattern.slice(1)));
  };
  const sorted = [...paths].sort();
  return [...sorted.filter(isSource), ...sorted.filter((path) => !isSource(path))];
}
