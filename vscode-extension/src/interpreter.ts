// Which Python runs the bundled server: the cudaport.interpreter setting, else the Python extension's active
// interpreter, else python3 on PATH. Kept free of the vscode module so it can be unit-tested.
import { execFile } from "child_process";

import { t } from "./l10n";

export const MINIMUM_PYTHON: [number, number] = [3, 10];

export type InterpreterSource = "setting" | "python-extension" | "path";

export interface Interpreter {
  path: string;
  source: InterpreterSource;
}

export interface InterpreterInputs {
  /** The cudaport.interpreter setting (may be empty or contain ${workspaceFolder}/~). */
  setting: string;
  /** The Python extension's active interpreter for the workspace, when that extension is installed. */
  pythonExtension: () => Promise<string | undefined>;
  /** Looks a command up on PATH. */
  which: (command: string) => Promise<string | undefined>;
  workspaceFolder?: string;
  home?: string;
}

export function expandPath(value: string, workspaceFolder?: string, home?: string): string {
  let out = value.trim();
  if (workspaceFolder) {
    out = out.split("${workspaceFolder}").join(workspaceFolder);
  }
  if (home && (out === "~" || out.startsWith("~/"))) {
    out = home + out.slice(1);
  }
  return out;
}

export async function chooseInterpreter(inputs: InterpreterInputs): Promise<Interpreter | undefined> {
  const configured = expandPath(inputs.setting, inputs.workspaceFolder, inputs.home);
  if (configured) {
    return { path: configured, source: "setting" };
  }
  try {
    const fromExtension = await inputs.pythonExtension();
    if (fromExtension) {
      return { path: fromExtension, source: "python-extension" };
    }
  } catch {
    // The Python extension failing to answer must not stop cudaport: fall through to PATH.
  }
  for (const command of ["python3", "python"]) {
    const found = await inputs.which(command);
    if (found) {
      return { path: found, source: "path" };
    }
  }
  return undefined;
}

/** "3.11.7" -> [3, 11]; anything else -> undefined. */
export function parseVersion(output: string): [number, number] | undefined {
  const match = /(\d+)\.(\d+)(?:\.\d+)?/.exec(output.trim());
  if (!match) {
    return undefined;
  }
  return [Number(match[1]), Number(match[2])];
}

export function isSupported(version: [number, number]): boolean {
  const [major, minor] = version;
  return major > MINIMUM_PYTHON[0] || (major === MINIMUM_PYTHON[0] && minor >= MINIMUM_PYTHON[1]);
}

export interface VersionCheck {
  ok: boolean;
  version?: [number, number];
  message?: string;
}

export type Runner = (command: string, args: string[]) => Promise<{ stdout: string; stderr: string }>;

export const runFile: Runner = (command, args) =>
  new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 20000 }, (error, stdout, stderr) => {
      if (error) {
        reject(Object.assign(error, { stderr }));
      } else {
        resolve({ stdout: String(stdout), stderr: String(stderr) });
      }
    });
  });

/** Runs the interpreter once to learn its version; explains what is wrong in words the user can act on. */
export async function checkInterpreter(interpreter: Interpreter, run: Runner = runFile): Promise<VersionCheck> {
  const where = describe(interpreter);
  let output: string;
  try {
    const result = await run(interpreter.path, ["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"]);
    output = result.stdout;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      return { ok: false, message: t("cudaport: Python was not found at {path} ({where}).", { path: interpreter.path, where }) };
    }
    return {
      ok: false,
      message: t("cudaport: {path} ({where}) could not be run: {error}", { path: interpreter.path, where, error: String(error) }),
    };
  }
  const version = parseVersion(output);
  if (!version) {
    return {
      ok: false,
      message: t("cudaport: {path} ({where}) did not report a Python version.", { path: interpreter.path, where }),
    };
  }
  if (!isSupported(version)) {
    const need = MINIMUM_PYTHON.join(".");
    return {
      ok: false,
      version,
      message: t(
        "cudaport needs Python {need} or newer; {path} ({where}) is Python {version}. Set cudaport.interpreter to a newer Python.",
        { need, path: interpreter.path, where, version: output.trim() },
      ),
    };
  }
  return { ok: true, version };
}

function describe(interpreter: Interpreter): string {
  switch (interpreter.source) {
    case "setting":
      return t("from the cudaport.interpreter setting");
    case "python-extension":
      return t("the Python extension's interpreter");
    default:
      return t("found on PATH");
  }
}

/** Said when no Python was found (a function: the message is in the display language, set at activation). */
export function noPythonMessage(): string {
  return t(
    "cudaport needs Python 3.10 or newer to run its server, and none was found: install Python 3, or set cudaport.interpreter (or cudaport.path to a cudaport you installed).",
  );
}
