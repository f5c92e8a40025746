// Offers, once per workspace, to read the workspace's GBK files as GBK: files.encoding=gbk for the workspace, or
// files.autoGuessEncoding where UTF-8 files with non-ASCII text live beside them (gbk for all would garble those).
// The answer, whatever it is, is kept in the workspace's state, so the offer is not made again.
import * as path from "path";
import * as vscode from "vscode";

import { survey, type Survey } from "./encoding";
import { INVENTORY_PATTERNS, SKIPPED_FOLDERS, SOURCE_PATTERNS, globOf, sourcesFirst } from "./fileKinds";
import { t } from "./l10n";

export const STATE_KEY = "cudaport.gbkOffer";
const LISTED = 5; // files named in the notification; the log lists all
const FOUND_AT_MOST = 2000;

type Answer = "gbk" | "autoGuess" | "declined";

export async function offerGbk(context: vscode.ExtensionContext, output: vscode.OutputChannel): Promise<void> {
  if (context.workspaceState.get<Answer>(STATE_KEY) || alreadyHandled()) {
    return;
  }
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === "file");
  if (!folders.length) {
    return;
  }
  const found = await vscode.workspace.findFiles(
    globOf([...SOURCE_PATTERNS, ...INVENTORY_PATTERNS]),
    SKIPPED_FOLDERS,
    FOUND_AT_MOST,
  );
  const result = await survey(sourcesFirst(found.map((uri) => uri.fsPath)));
  if (!result.gbk.length) {
    return;
  }
  const names = result.gbk.map((file) => relative(file));
  output.appendLine(
    t("Read as GBK (GB18030), not UTF-8 ({count} of {checked} files checked): {files}", {
      count: names.length,
      checked: result.checked,
      files: names.join(", "),
    }),
  );
  const useGbk = t("Use GBK in this workspace");
  const guess = t("Guess each file's encoding");
  const no = t("No");
  // Where UTF-8 files with Chinese (or other non-ASCII) text live beside them, guessing comes first.
  const choices = result.utf8 ? [guess, useGbk, no] : [useGbk, guess, no];
  const choice = await vscode.window.showWarningMessage(message(names, result), ...choices);
  const answer: Answer = choice === useGbk ? "gbk" : choice === guess ? "autoGuess" : "declined";
  await context.workspaceState.update(STATE_KEY, answer);
  const files = vscode.workspace.getConfiguration("files");
  if (answer === "gbk") {
    await files.update("encoding", "gbk", vscode.ConfigurationTarget.Workspace);
  } else if (answer === "autoGuess") {
    await files.update("autoGuessEncoding", true, vscode.ConfigurationTarget.Workspace);
  }
}

/** The user already reads files as GBK or lets VS Code guess: nothing to offer. */
function alreadyHandled(): boolean {
  const files = vscode.workspace.getConfiguration("files");
  const encoding = files.get<string>("encoding", "utf8").toLowerCase();
  return files.get<boolean>("autoGuessEncoding", false) || encoding === "gbk" || encoding === "gb18030";
}

function message(names: string[], result: Survey): string {
  const shown = names.slice(0, LISTED).join(", ");
  const files =
    names.length > LISTED ? t("{files} and {more} more", { files: shown, more: names.length - LISTED }) : shown;
  const head =
    names.length === 1
      ? t("cudaport: {files} is encoded in GBK (GB18030), not UTF-8, and VS Code shows its Chinese text garbled.", {
          files,
        })
      : t(
          "cudaport: {count} files in this workspace are encoded in GBK (GB18030), not UTF-8, and VS Code shows their Chinese text garbled: {files}.",
          { count: names.length, files },
        );
  const question = result.utf8
    ? t(
        "Other files with non-ASCII text are UTF-8: let VS Code guess each file's encoding (files.autoGuessEncoding), or set files.encoding to gbk for this workspace?",
      )
    : t("Set files.encoding to gbk for this workspace, or let VS Code guess each file's encoding (files.autoGuessEncoding)?");
  return `${head} ${question}`;
}

function relative(file: string): string {
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file));
  return folder ? path.relative(folder.uri.fsPath, file).split(path.sep).join("/") : file;
}
