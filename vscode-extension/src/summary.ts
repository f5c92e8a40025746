// The migration summary as a read-only document of its own scheme: VS Code asks this provider for its text, which
// the showSummary command sets each time it runs (an open summary then shows the new one).
import * as vscode from "vscode";

import { t } from "./l10n";

export const SUMMARY_SCHEME = "cudaport-summary";

/** The summary's document; its name (the editor tab's title) is in the display language. */
export function summaryUri(): vscode.Uri {
  return vscode.Uri.from({ scheme: SUMMARY_SCHEME, path: `/${t("Migration summary")}.md` });
}

export class SummaryDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly texts = new Map<string, string>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    // After a window reload VS Code may ask for a summary this session has not made yet.
    return (
      this.texts.get(uri.toString()) ??
      `# cudaport\n\n${t("Run **cudaport: Show the migration summary** to summarise the workspace.")}\n`
    );
  }

  set(uri: vscode.Uri, text: string): void {
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
  }

  dispose(): void {
    this.changed.dispose();
  }
}
