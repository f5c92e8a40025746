// The cudaport VS Code extension: starts the cudaport language server (bundled, or the user's own), keeps its
// settings in sync, and adds the commands and the status item. All analysis and rewriting happen in the server.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as vscode from "vscode";
import {
  CloseAction,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions as ClientServerOptions,
  State,
  TransportKind,
  WorkDoneProgress,
} from "vscode-languageclient/node";

import { offerGbk } from "./gbkOffer";
import { checkInterpreter, chooseInterpreter, expandPath, noPythonMessage } from "./interpreter";
import { setTranslator, t } from "./l10n";
import { ServerCommand, bundledServer, userServer } from "./serverCommand";
import { toServerOptions } from "./settings";
import { scopes, statusText, statusTooltip, targetLabels, targetOf, type TargetLabels } from "./status";
import { SUMMARY_SCHEME, SummaryDocuments, summaryUri } from "./summary";

const SECTION = "cudaport";
const FIX_ALL_KIND = vscode.CodeActionKind.SourceFixAll.append("cudaport");
// Sources, and the inventory's file kinds (rules/files.toml): build files, manifests, containers, scripts,
// configs, Cython. Notebook cells reach the server as Python documents of the vscode-notebook-cell scheme.
const INVENTORY_LANGUAGES = [
  "cmake", "makefile", "dockerfile", "pip-requirements", "shellscript", "yaml", "json", "jsonc", "toml", "cython",
  "ini",
];
const INVENTORY_NAMES =
  "**/{CMakeLists.txt,*.cmake,requirements*.txt,constraints*.txt,requirements/*.txt,Pipfile,Dockerfile*,Containerfile*,*.dockerfile,*.slurm,*.sbatch,*.pyx,*.pxd}";
const DOCUMENTS = [
  { scheme: "file", language: "cuda-cpp" },
  { scheme: "file", language: "cpp" },
  { scheme: "file", language: "c" },
  { scheme: "file", language: "python" },
  { scheme: "untitled", language: "cuda-cpp" },
  { scheme: "untitled", language: "python" },
  { scheme: "vscode-notebook-cell", language: "python" },
  ...INVENTORY_LANGUAGES.map((language) => ({ scheme: "file", language })),
  // Inventory files VS Code has no language for without another extension (CMake, pip requirements): by name,
  // whatever their language id; the server tells their kind from the name (rules/files.toml), as the CLI does.
  { scheme: "file", pattern: INVENTORY_NAMES },
];

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let status: vscode.StatusBarItem;
const summaries = new SummaryDocuments();

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  // Messages in VS Code's display language, from l10n/bundle.l10n.<language>.json (package.json "l10n").
  setTranslator((message, args) => vscode.l10n.t(message, args));
  output = vscode.window.createOutputChannel("cudaport");
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  status.command = "cudaport.showSummary";
  context.subscriptions.push(output, status);

  context.subscriptions.push(
    summaries,
    vscode.workspace.registerTextDocumentContentProvider(SUMMARY_SCHEME, summaries),
    vscode.commands.registerCommand("cudaport.fixAll", fixAllInFile),
    vscode.commands.registerCommand("cudaport.migrateWorkspace", migrateWorkspace),
    vscode.commands.registerCommand("cudaport.showSummary", showSummary),
    vscode.commands.registerCommand("cudaport.restartServer", () => (enabled() ? lifecycle(() => restart(context)) : sayDisabled())),
    vscode.commands.registerCommand("cudaport.showLogs", () => output.show(true)),
    vscode.languages.onDidChangeDiagnostics(() => updateStatus()),
    vscode.window.tabGroups.onDidChangeTabs(() => updateStatus()),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration("cudaport.enable")) {
        // On: the server starts (as at activation); off: it stops, and its diagnostics and the status item go.
        await lifecycle(() => (enabled() ? start(context) : stop()));
      } else if (!enabled()) {
        return;
      } else if (event.affectsConfiguration("cudaport.path") || event.affectsConfiguration("cudaport.interpreter")) {
        await lifecycle(() => restart(context));
      } else if (event.affectsConfiguration(SECTION)) {
        reportSettingProblems();
        updateStatus();
      }
    }),
    // In a workspace not yet trusted, its own settings of cudaport.path, interpreter, configuration and logFile are
    // not read (package.json's restrictedConfigurations) and no interpreter of the workspace runs: once it is
    // trusted, they count.
    vscode.workspace.onDidGrantWorkspaceTrust(() => (enabled() ? lifecycle(() => restart(context)) : undefined)),
  );
  if (!enabled()) {
    output.appendLine(t("cudaport.enable is false: no server is started."));
    return;
  }
  await lifecycle(() => start(context));
}

function enabled(): boolean {
  return vscode.workspace.getConfiguration(SECTION).get<unknown>("enable", true) !== false;
}

function sayDisabled(): void {
  void vscode.window.showInformationMessage(t("cudaport is turned off (cudaport.enable)."));
}

// Starting and stopping one after the other: settings toggled quickly must not start two servers.
let pending: Promise<void> = Promise.resolve();
function lifecycle(step: () => Promise<void>): Promise<void> {
  pending = pending.then(step, step);
  return pending;
}

// The running client stopped and forgotten (a failure to stop is logged: the next start replaces it anyway).
async function stopClient(): Promise<void> {
  if (client) {
    try {
      await client.stop();
    } catch (error) {
      output.appendLine(t("Stopping the server: {error}", { error: String(error) }));
    }
    client = undefined;
  }
}

async function stop(): Promise<void> {
  await stopClient();
  status.hide();
  output.appendLine(t("cudaport.enable is false: the server is stopped."));
}

let gbkOffered = false;

export async function deactivate(): Promise<void> {
  if (client) {
    await client.stop();
    client = undefined;
  }
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  if (client || !enabled()) {
    return;
  }
  status.command = "cudaport.showSummary";
  const command = await resolveServer(context);
  if (!command) {
    setStatusError(t("cudaport: no server"));
    return;
  }
  output.appendLine(t("Starting: {command}", { command: `${command.command} ${command.args.join(" ")} --stdio` }));
  const serverOptions: ClientServerOptions = {
    command: command.command,
    args: command.args,
    transport: TransportKind.stdio,
    options: { env: command.env, cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir() },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENTS,
    outputChannel: output,
    traceOutputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: currentOptions(),
    synchronize: {
      configurationSection: SECTION,
      fileEvents: vscode.workspace.createFileSystemWatcher("**/{pyproject.toml,cudaport.toml}"),
    },
    middleware: {
      workspace: {
        // The server asks for the `cudaport` section; answer with the mapped options, not the raw settings.
        configuration: async (params, token, next) => {
          const raw = await next(params, token);
          if (!Array.isArray(raw)) {
            return raw;
          }
          return params.items.map((item, index) => (item.section === SECTION ? currentOptions() : raw[index]));
        },
      },
    },
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue }),
      closed: () => {
        const showLog = t("Show log");
        const restartChoice = t("Restart");
        void vscode.window
          .showErrorMessage(t("The cudaport server stopped. See the log for why."), showLog, restartChoice)
          .then((choice) => {
            if (choice === showLog) {
              output.show(true);
            } else if (choice === restartChoice) {
              void lifecycle(() => restart(context));
            }
          });
        return { action: CloseAction.DoNotRestart };
      },
    },
  };
  client = new LanguageClient("cudaport", "cudaport", serverOptions, clientOptions);
  client.onDidChangeState((event) => {
    if (event.newState === State.Running) {
      updateStatus();
    }
  });
  try {
    await client.start();
    void loadTargets(client);
    if (!gbkOffered) {
      // After the server started: a workspace of GBK files gets the offer to read them as GBK (once).
      gbkOffered = true;
      void offerGbk(context, output).catch((error) => output.appendLine(`GBK check: ${String(error)}`));
    }
  } catch (error) {
    output.appendLine(t("The server failed to start: {error}", { error: String(error) }));
    setStatusError(t("cudaport: server failed"));
    const showLog = t("Show log");
    const choice = await vscode.window.showErrorMessage(
      t("cudaport: the server failed to start ({error}).", { error: String(error) }),
      showLog,
    );
    if (choice === showLog) {
      output.show(true);
    }
    return;
  }
  reportSettingProblems();
  updateStatus();
}

async function restart(context: vscode.ExtensionContext): Promise<void> {
  await stopClient();
  await start(context);
}

async function resolveServer(context: vscode.ExtensionContext): Promise<ServerCommand | undefined> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const userPath = expandPath(config.get<string>("path", ""), folder, os.homedir());
  if (userPath) {
    if (!fs.existsSync(userPath)) {
      void vscode.window.showErrorMessage(t("cudaport.path points at {path}, which does not exist.", { path: userPath }));
      return undefined;
    }
    return userServer(userPath, process.env);
  }
  const interpreter = await chooseInterpreter({
    setting: config.get<string>("interpreter", ""),
    // Not in an untrusted workspace: the Python extension's choice may be the workspace's own environment.
    pythonExtension: async () => (vscode.workspace.isTrusted ? pythonExtensionInterpreter() : undefined),
    which: async (name) => which(name),
    workspaceFolder: folder,
    home: os.homedir(),
  });
  if (!interpreter) {
    output.appendLine(noPythonMessage());
    void vscode.window.showErrorMessage(noPythonMessage(), t("Show log")).then((choice) => {
      if (choice) {
        output.show(true);
      }
    });
    return undefined;
  }
  const check = await checkInterpreter(interpreter);
  if (!check.ok || !check.version) {
    const message = check.message ?? noPythonMessage();
    output.appendLine(message);
    void vscode.window.showErrorMessage(message, t("Show log")).then((choice) => {
      if (choice) {
        output.show(true);
      }
    });
    return undefined;
  }
  output.appendLine(
    t("Python {version} at {path} ({source})", {
      version: check.version.join("."),
      path: interpreter.path,
      source: interpreter.source,
    }),
  );
  const bundle = context.asAbsolutePath("bundled");
  if (!fs.existsSync(path.join(bundle, "libs", "cudaport"))) {
    const message = t("cudaport: this build of the extension carries no server (bundled/libs is missing).");
    output.appendLine(message);
    void vscode.window.showErrorMessage(message);
    return undefined;
  }
  const native = path.join(bundle, "native", `cp${check.version[0]}${check.version[1]}`);
  if (!fs.existsSync(native)) {
    const message = t(
      "cudaport: the bundled server has no native libraries for Python {version}; set cudaport.interpreter to Python 3.10-3.14, or cudaport.path to your own cudaport.",
      { version: check.version.join(".") },
    );
    output.appendLine(message);
    void vscode.window.showErrorMessage(message);
    return undefined;
  }
  return bundledServer(interpreter.path, check.version, bundle, process.env);
}

async function pythonExtensionInterpreter(): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension("ms-python.python");
  if (!extension) {
    return undefined;
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const api: any = extension.isActive ? extension.exports : await extension.activate();
  const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (api?.environments?.getActiveEnvironmentPath) {
    const active = api.environments.getActiveEnvironmentPath(resource);
    const resolved = await api.environments.resolveEnvironment(active);
    const executable: string | undefined = resolved?.executable?.uri?.fsPath ?? active?.path;
    if (executable) {
      return executable;
    }
  }
  const details = api?.settings?.getExecutionDetails?.(resource);
  return details?.execCommand?.[0];
}

function which(command: string): string | undefined {
  for (const folder of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!folder) {
      continue;
    }
    const candidate = path.join(folder, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) {
        return candidate;
      }
    } catch {
      // not here
    }
  }
  return undefined;
}

function mappedSettings() {
  const paths = { workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath, home: os.homedir() };
  return toServerOptions(vscode.workspace.getConfiguration(SECTION), vscode.env.language, paths);
}

function currentOptions() {
  return mappedSettings().options;
}

let lastProblems = "";
function reportSettingProblems(): void {
  const { problems } = mappedSettings();
  const text = problems.join("; ");
  if (text && text !== lastProblems) {
    output.appendLine(t("Settings: {problems}", { problems: text }));
    void vscode.window.showWarningMessage(t("cudaport settings: {problems}", { problems: text }));
  }
  lastProblems = text;
}

function updateStatus(): void {
  if (!client || client.state !== State.Running) {
    return;
  }
  // Every file the server reported on: the open documents, and the workspace's files it checks from disk
  // (workspace diagnostics). vscode.DiagnosticSeverity counts from 0, LSP's from 1.
  const entries = vscode.languages.getDiagnostics();
  const plain = (d: vscode.Diagnostic) => ({ source: d.source, severity: d.severity, data: (d as { data?: unknown }).data });
  const open = openFiles();
  const counted = scopes(
    entries.map(([uri, diagnostics]) => [uri, diagnostics.map(plain)] as [vscode.Uri, ReturnType<typeof plain>[]]),
    (uri) => open.has(fileKey(uri)),
    1,
  );
  const target = targetOf(entries.flatMap(([, diagnostics]) => diagnostics.map(plain))) ?? currentOptions().target;
  status.text = statusText(target, counted.workspace.counts, labels);
  status.tooltip = statusTooltip(target, counted.workspace, counted.open, labels);
  status.backgroundColor = undefined;
  status.show();
}

/** The files open in an editor tab (a notebook counts for its cells). */
function openFiles(): Set<string> {
  const open = new Set<string>();
  for (const tab of vscode.window.tabGroups.all.flatMap((group) => group.tabs)) {
    const input = tab.input;
    if (input instanceof vscode.TabInputText || input instanceof vscode.TabInputNotebook) {
      open.add(fileKey(input.uri));
    } else if (input instanceof vscode.TabInputTextDiff) {
      open.add(fileKey(input.modified));
    }
  }
  return open;
}

function fileKey(uri: vscode.Uri): string {
  // A notebook cell's diagnostics are filed under the cell's URI, whose path is the notebook's.
  return uri.scheme === "vscode-notebook-cell" ? `file:${uri.path}` : uri.with({ fragment: "" }).toString();
}

function setStatusError(text: string): void {
  status.text = `$(error) ${text}`;
  status.tooltip = t("Click to show the cudaport log");
  status.command = "cudaport.showLogs";
  status.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
  status.show();
}

async function fixAllInFile(): Promise<void> {
  if (!client) {
    if (enabled()) void vscode.window.showErrorMessage(t("cudaport: the server is not running."));
    else sayDisabled();
    return;
  }
  if (!currentOptions().fixAll) {
    void vscode.window.showInformationMessage(t("cudaport: fix-all is turned off (cudaport.fixAll)."));
    return;
  }
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage(t("cudaport: open a file to fix."));
    return;
  }
  // Ask the providers for the action directly rather than through the editor's code-action UI: the UI drops an
  // explicit request when diagnostics arrive while it is in flight (as they do right after an edit or a save).
  const document = editor.document;
  const whole = new vscode.Range(0, 0, document.lineCount, 0);
  const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
    "vscode.executeCodeActionProvider",
    document.uri,
    whole,
    FIX_ALL_KIND.value,
    1, // resolve the first action's edit (the server computes it on request)
  );
  const action = (actions ?? []).find((candidate) => candidate.kind && FIX_ALL_KIND.contains(candidate.kind));
  if (!action?.edit) {
    void vscode.window.showInformationMessage(t("cudaport: no safe fixes in this file."));
    return;
  }
  if (!(await vscode.workspace.applyEdit(action.edit))) {
    // The edit names the document version it was computed for: the file changed in the meantime.
    void vscode.window.showWarningMessage(
      t("cudaport: the file changed while the fixes were computed; run the command again."),
    );
  }
}

// The targets' labels, from the rule data the server loaded (no list of our own: a target added by a rule file
// shows up here too).
let labels: TargetLabels = {};
async function loadTargets(running: LanguageClient): Promise<void> {
  try {
    const targets = await running.sendRequest<unknown>("workspace/executeCommand", {
      command: "cudaport.server.targets",
      arguments: [],
    });
    labels = targetLabels(targets);
    updateStatus();
  } catch (error) {
    output.appendLine(t("Could not list the targets: {error}", { error: String(error) }));
  }
}

/** One of the server's workspace commands, with a progress notification; undefined when no server runs. */
async function serverCommand<T>(command: string, title: string): Promise<T | undefined> {
  const running = client;
  if (!running) {
    if (enabled()) void vscode.window.showErrorMessage(t("cudaport: the server is not running."));
    else sayDisabled();
    return undefined;
  }
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, () =>
    running.sendRequest<T>("workspace/executeCommand", { command, arguments: [] }),
  );
}

async function migrateWorkspace(): Promise<void> {
  // The server computes every safe fix in the workspace and sends them back as one workspace edit whose changes
  // need confirmation, so VS Code shows its refactor preview before anything is written.
  const result = await serverCommand<{ files: number; fixes: number; applied: boolean } | null>(
    "cudaport.server.migrateWorkspace",
    t("cudaport: computing the safe rewrites of the workspace"),
  );
  if (result === undefined) return;
  if (!result || result.fixes === 0) {
    void vscode.window.showInformationMessage(t("cudaport: nothing to migrate automatically in this workspace."));
  } else if (result.applied) {
    void vscode.window.showInformationMessage(
      t("cudaport: applied {fixes} safe rewrites in {files} files (unsaved: review, then save).", {
        fixes: result.fixes,
        files: result.files,
      }),
    );
  }
}

async function showSummary(): Promise<void> {
  const running = client;
  if (!running) {
    if (enabled()) void vscode.window.showErrorMessage(t("cudaport: the server is not running."));
    else sayDisabled();
    return;
  }
  // The server works the summary out on a thread of its own and reports each file under this work-done token;
  // the notification's Cancel cancels the request.
  const markdown = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: t("cudaport: summarising the workspace"), cancellable: true },
    async (progress, cancellation) => {
      const token = `cudaport-summary-${Date.now()}`;
      let reported = 0;
      const listening = running.onProgress(WorkDoneProgress.type, token, (value) => {
        if (value.kind === "report") {
          const percentage = value.percentage ?? reported;
          progress.report({ message: value.message, increment: Math.max(0, percentage - reported) });
          reported = Math.max(reported, percentage);
        }
      });
      try {
        return (await running.sendRequest(
          ExecuteCommandRequest.type,
          { command: "cudaport.server.summary", arguments: [], workDoneToken: token },
          cancellation,
        )) as string | undefined;
      } catch (error) {
        if (cancellation.isCancellationRequested) return undefined;
        void vscode.window.showErrorMessage(t("cudaport: the summary failed: {error}", { error: String(error) }));
        return undefined;
      } finally {
        listening.dispose();
      }
    },
  );
  if (typeof markdown !== "string") return;
  // A read-only document of its own (not an unsaved "Untitled" one), kept up to date when the command runs again,
  // with the rendered preview beside it.
  const uri = summaryUri();
  summaries.set(uri, markdown);
  const document = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(document, { preview: false });
  try {
    await vscode.commands.executeCommand("markdown.showPreviewToSide", document.uri);
  } catch (error) {
    output.appendLine(t("No Markdown preview: {error}", { error: String(error) }));
  }
}
