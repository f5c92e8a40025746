// How the server process is started: a user-installed cudaport (cudaport.path), or the bundled one run by the
// chosen Python with the bundled libraries on its path. vscode-languageclient appends --stdio itself.
import * as path from "path";

export interface ServerCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The folder of version-specific native wheels (tree-sitter is not abi3) for a Python version. */
export function nativeFolder(bundleRoot: string, version: [number, number]): string {
  return path.join(bundleRoot, "native", `cp${version[0]}${version[1]}`);
}

export function bundledServer(
  python: string,
  version: [number, number],
  bundleRoot: string,
  baseEnv: NodeJS.ProcessEnv,
): ServerCommand {
  const entries = [nativeFolder(bundleRoot, version), path.join(bundleRoot, "libs")];
  const existing = baseEnv.PYTHONPATH;
  const pythonPath = existing ? [...entries, existing].join(path.delimiter) : entries.join(path.delimiter);
  return {
    command: python,
    // -I would drop PYTHONPATH; -s keeps the user's site-packages from shadowing the bundled libraries.
    args: ["-s", "-m", "cudaport", "serve"],
    env: { ...stringEnv(baseEnv), PYTHONPATH: pythonPath, PYTHONNOUSERSITE: "1", PYTHONUTF8: "1" },
  };
}

export function userServer(executable: string, baseEnv: NodeJS.ProcessEnv): ServerCommand {
  return { command: executable, args: ["serve"], env: stringEnv(baseEnv) };
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined) {
      out[key] = value;
    }
  }
  return out;
}
