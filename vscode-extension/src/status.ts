// Counts of cudaport findings by difficulty, for the status bar. Free of the vscode module for unit tests.

export const DIFFICULTIES = ["portable", "mechanical", "manual", "blocker"] as const;
export type Difficulty = (typeof DIFFICULTIES)[number];
export type Counts = Record<Difficulty, number>;

// LSP DiagnosticSeverity numbering -> the difficulty it follows by default.
const BY_SEVERITY: Record<number, Difficulty> = { 1: "blocker", 2: "manual", 3: "mechanical", 4: "portable" };

export interface DiagnosticLike {
  source?: string;
  severity?: number;
  data?: unknown;
}

export function emptyCounts(): Counts {
  return { portable: 0, mechanical: 0, manual: 0, blocker: 0 };
}

/** The difficulty the server put in the diagnostic's data, else the one its (default) severity stands for. */
export function difficultyOf(diagnostic: DiagnosticLike, severityOffset = 0): Difficulty | undefined {
  const data = diagnostic.data as { difficulty?: unknown } | undefined;
  if (data && typeof data.difficulty === "string" && (DIFFICULTIES as readonly string[]).includes(data.difficulty)) {
    return data.difficulty as Difficulty;
  }
  if (diagnostic.severity === undefined) {
    return undefined;
  }
  return BY_SEVERITY[diagnostic.severity + severityOffset];
}

export function countFindings(diagnostics: Iterable<DiagnosticLike>, severityOffset = 0): Counts {
  const counts = emptyCounts();
  for (const diagnostic of diagnostics) {
    if (diagnostic.source !== "cudaport") {
      continue;
    }
    const difficulty = difficultyOf(diagnostic, severityOffset);
    if (difficulty) {
      counts[difficulty] += 1;
    }
  }
  return counts;
}

const LABELS: Record<string, string> = { hip: "HIP", npu: "NPU", mlu: "MLU" };

export function statusText(target: string, counts: Counts): string {
  const label = LABELS[target] ?? target.toUpperCase();
  const parts = [`${counts.blocker} blocker`, `${counts.manual} manual`, `${counts.mechanical} mechanical`];
  return `$(circuit-board) CUDA→${label}: ${parts.join(" · ")}`;
}

export function statusTooltip(target: string, counts: Counts): string {
  const label = LABELS[target] ?? target;
  return (
    `cudaport findings in open files for ${label}:\n` +
    `blocker ${counts.blocker}, manual ${counts.manual}, mechanical ${counts.mechanical}, portable ${counts.portable}\n` +
    "Click for the migration summary of the workspace."
  );
}
