import assert from "node:assert/strict";
import { test } from "node:test";

import { toServerOptions } from "../../src/settings";
import { countFindings, statusText, targetLabels, targetOf } from "../../src/status";
import { bundledServer, userServer } from "../../src/serverCommand";

function view(values: Record<string, unknown>) {
  return { get: <T>(key: string, fallback: T): T => (key in values ? (values[key] as T) : fallback) };
}

test("defaults send an empty target, lint on type, nothing selected or ignored", () => {
  const { options, problems } = toServerOptions(view({}));
  // an empty target and no empty lists: the project's configuration keeps its values (its target too)
  assert.deepEqual(options, { target: "", run: "onType", logLevel: "info" });
  assert.deepEqual(problems, []);
});

test("settings map to server options, normalising codes and severities", () => {
  const { options, problems } = toServerOptions(
    view({
      target: "npu",
      select: ["cp1", "CP20"],
      ignore: ["CP1018"],
      severity: { cp2001: "Error", CP5: "hint" },
      exclude: ["third_party/**", ""],
      run: "onSave",
      logLevel: "debug",
    }),
  );
  assert.deepEqual(options, {
    target: "npu",
    select: ["CP1", "CP20"],
    ignore: ["CP1018"],
    severity: { CP2001: "error", CP5: "hint" },
    extendExclude: ["third_party/**"],
    run: "onSave",
    logLevel: "debug",
  });
  assert.deepEqual(problems, []);
});

test("bad values are dropped with a problem naming the setting", () => {
  const { options, problems } = toServerOptions(
    view({ target: "not a target!", select: ["E501"], severity: { CP1001: "fatal" }, logLevel: "loud" }),
  );
  assert.equal(options.target, "");
  assert.equal(options.select, undefined);
  assert.equal(options.severity, undefined);
  assert.equal(options.logLevel, "info");
  assert.equal(problems.length, 3);
  assert.match(problems.join("\n"), /cudaport\.target.*not a target/);
  assert.match(problems.join("\n"), /cudaport\.select.*E501/);
  assert.match(problems.join("\n"), /cudaport\.severity.*CP1001/);
});

test("status counts only cudaport diagnostics, by data or by severity", () => {
  const counts = countFindings([
    { source: "cudaport", severity: 1, data: { difficulty: "mechanical" } },
    { source: "cudaport", severity: 1 },
    { source: "cudaport", severity: 2 },
    { source: "cudaport", severity: 4 },
    { source: "clangd", severity: 1 },
  ]);
  assert.deepEqual(counts, { portable: 1, mechanical: 1, manual: 1, blocker: 1 });
  // vscode.DiagnosticSeverity counts from 0
  assert.deepEqual(countFindings([{ source: "cudaport", severity: 0 }], 1).blocker, 1);
  const labels = targetLabels([{ name: "npu", label: "Ascend NPU" }, { name: "musa", label: "MUSA" }, { bad: 1 }]);
  assert.deepEqual(labels, { npu: "Ascend NPU", musa: "MUSA" });
  assert.equal(statusText("npu", counts, labels), "$(circuit-board) CUDA→Ascend NPU: 1 blocker · 1 manual · 1 mechanical");
  assert.equal(statusText("hip", counts), "$(circuit-board) CUDA→HIP: 1 blocker · 1 manual · 1 mechanical");
});

test("the status names the target the server's diagnostics were made for", () => {
  const target = targetOf([
    { source: "cudaport", data: { target: "npu" } },
    { source: "cudaport", data: { target: "npu" } },
    { source: "cudaport", data: { target: "hip" } },
    { source: "clangd", data: { target: "hip" } },
  ]);
  assert.equal(target, "npu");
  assert.equal(targetOf([]), undefined);
});

test("the bundled server runs python -m cudaport with the version's native folder first", () => {
  const command = bundledServer("/usr/bin/python3", [3, 12], "/ext/bundled", { PATH: "/usr/bin", PYTHONPATH: "/x" });
  assert.equal(command.command, "/usr/bin/python3");
  assert.deepEqual(command.args, ["-s", "-m", "cudaport", "serve"]);
  assert.equal(command.env.PYTHONPATH, "/ext/bundled/native/cp312:/ext/bundled/libs:/x");
  assert.equal(command.env.PATH, "/usr/bin");
  const user = userServer("/home/u/.local/bin/cudaport", {});
  assert.deepEqual([user.command, user.args], ["/home/u/.local/bin/cudaport", ["serve"]]);
});
