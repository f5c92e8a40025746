// Counts of cudaport findings by difficulty, for the status bar. Free of the vscode module for unit tests.
import { t } from "./l10n";

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

/** Labels of the targets, by name, as the server's `cudaport.server.targets` command gives them. */
export type TargetLabels = Record<string, string>;

export interface TargetInfo {
  name: string;
  label: string;
  platform?: string;
  aliases?: string[];
}

export function targetLabels(targets: unknown): TargetLabels {
  const labels: TargetLabels = {};
  if (Array.isArray(targets)) {
    for (const item of targets as TargetInfo[]) {
      if (item && typeof item.name === "string" && typeof item.label === "string") {
        labels[item.name] = item.label;
      }
    }
  }
  return labels;
}

/** The target the server analysed for: the one most of its diagnostics carry in their data. */
export function targetOf(diagnostics: Iterable<DiagnosticLike>): string | undefined {
  const seen = new Map<string, number>();
  for (const diagnostic of diagnostics) {
    const data = diagnostic.data as { target?: unknown } | undefined;
    if (diagnostic.source === "cudaport" && data && typeof data.target === "string") {
      seen.set(data.target, (seen.get(data.target) ?? 0) + 1);
    }
  }
  let best: string | undefined;
  for (const [target, count] of seen) {
    if (best === undefined || count > (seen.get(best) ?? 0)) best = target;
  }
  return best;
}

function labelOf(target: string | undefined, labels: TargetLabels): string {
  if (!target) return t("project target");
  return labels[target] ?? target.toUpperCase();
}

export function statusText(target: string | undefined, counts: Counts, labels: TargetLabels = {}): string {
  const label = labelOf(target, labels);
  const { blocker, manual, mechanical } = counts;
  // The codicon and "CUDA→" stay outside the message: translators see only words.
  return `$(circuit-board) CUDA→${t("{target}: {blocker} blocker · {manual} manual · {mechanical} mechanical", {
    target: label,
    blocker,
    manual,
    mechanical,
  })}`;
}

/** Findings counted over some files: by difficulty, and how many files have any. */
export interface Scope {
  counts: Counts;
  files: number;
}

/**
 * The workspace's findings (every file the server reported on: open documents, and the files of the workspace it
 * analyses from disk) and those of the open files alone. `entries` are (file, diagnostics) pairs as
 * vscode.languages.getDiagnostics() gives them; `isOpen` tells whether a file is open in an editor.
 */
export function scopes<K>(
  entries: Iterable<[K, Iterable<DiagnosticLike>]>,
  isOpen: (file: K) => boolean,
  severityOffset = 0,
): { workspace: Scope; open: Scope } {
  const workspace: Scope = { counts: emptyCounts(), files: 0 };
  const open: Scope = { counts: emptyCounts(), files: 0 };
  for (const [file, diagnostics] of entries) {
    const counts = countFindings(diagnostics, severityOffset);
    if (DIFFICULTIES.every((d) => counts[d] === 0)) continue;
    for (const scope of isOpen(file) ? [workspace, open] : [workspace]) {
      scope.files += 1;
      for (const d of DIFFICULTIES) scope.counts[d] += counts[d];
    }
  }
  return { workspace, open };
}

function workspaceLine(scope: Scope): string {
  const { counts, files } = scope;
  const args = { files, ...counts };
  return files === 1
    ? t("Workspace ({files} file with findings): blocker {blocker}, manual {manual}, mechanical {mechanical}, portable {portable}", args)
    : t("Workspace ({files} files with findings): blocker {blocker}, manual {manual}, mechanical {mechanical}, portable {portable}", args);
}

function openLine(scope: Scope): string {
  const { counts, files } = scope;
  const args = { files, ...counts };
  return files === 1
    ? t("Open files ({files} file with findings): blocker {blocker}, manual {manual}, mechanical {mechanical}, portable {portable}", args)
    : t("Open files ({files} files with findings): blocker {blocker}, manual {manual}, mechanical {mechanical}, portable {portable}", args);
}

export function statusTooltip(
  target: string | undefined,
  workspace: Scope,
  open: Scope,
  labels: TargetLabels = {},
): string {
  const label = labelOf(target, labels);
  return [
    t("cudaport findings for {target} (the status bar counts the workspace)", { target: label }),
    workspaceLine(workspace),
    openLine(open),
    t("Click for the migration summary of the workspace."),
  ].join("\n");
}
