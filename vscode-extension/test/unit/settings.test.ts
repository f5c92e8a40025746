import assert from "node:assert/strict";
import { test } from "node:test";

import { toServerOptions } from "../../src/settings";
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { countFindings, scopes, statusText, statusTooltip, targetLabels, targetOf } from "../../src/status";
import { bundledServer, userServer } from "../../src/serverCommand";

function view(values: Record<string, unknown>) {
  return { get: <T>(key: string, fallback: T): T => (key in values ? (values[key] as T) : fallback) };
}

test("defaults send an empty target, lint on type, nothing selected or ignored", () => {
  const { options, problems } = toServerOptions(view({}));
  // an empty target and no empty lists: the project's configuration keeps its values (its target too)
  // lang "": the server follows the client's locale
  // config and logFile "": no file named (sent, so that clearing the setting clears the server's value)
  assert.deepEqual(options, {
    target: "", run: "onType", showPortable: true, logLevel: "info", lang: "", config: "", logFile: "", fixAll: true, fixActions: true, ignoreCommentActions: true,
  });
  assert.deepEqual(problems, []);
});

test("configuration, extendSelect, logFile and the code-action toggles", () => {
  const { options, problems } = toServerOptions(
    view({
      configuration: "${workspaceFolder}/ci/cudaport.toml",
      extendSelect: ["cp3", "CP9001"],
      logFile: "~/cudaport.log",
      fixAll: false,
      "codeAction.fix.enable": false,
      "codeAction.ignoreComment.enable": false,
    }),
    "",
    { workspaceFolder: "/work/project", home: "/home/me" },
  );
  assert.equal(options.config, "/work/project/ci/cudaport.toml");
  assert.deepEqual(options.extendSelect, ["CP3", "CP9001"]);
  assert.equal(options.logFile, "/home/me/cudaport.log");
  assert.deepEqual([options.fixAll, options.fixActions, options.ignoreCommentActions], [false, false, false]);
  assert.deepEqual(problems, []);
  const bad = toServerOptions(view({ fixAll: "no", configuration: 3, extendSelect: ["X1"] }));
  assert.equal(bad.options.fixAll, true);
  assert.equal(bad.options.config, "");
  assert.equal(bad.options.extendSelect, undefined);
  assert.match(bad.problems.join("\n"), /cudaport\.fixAll: expected true or false, not "no"/);
  assert.match(bad.problems.join("\n"), /cudaport\.configuration: expected a path, not 3/);
  assert.match(bad.problems.join("\n"), /cudaport\.extendSelect: "X1" is not a rule code/);
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
      showPortable: false,
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
    showPortable: false,
    logLevel: "debug",
    lang: "",
    config: "", logFile: "", fixAll: true, fixActions: true, ignoreCommentActions: true,
  });
  assert.deepEqual(problems, []);
});

test("the server's language: VS Code's display language, unless cudaport.lang names one", () => {
  assert.equal(toServerOptions(view({}), "zh-cn").options.lang, "zh-cn");
  assert.equal(toServerOptions(view({ lang: "" }), "en").options.lang, "en");
  assert.equal(toServerOptions(view({ lang: "en" }), "zh-cn").options.lang, "en");
  assert.equal(toServerOptions(view({ lang: " zh-CN " }), "en").options.lang, "zh-CN");
  // a display language cudaport has no messages in is sent as it is: the server answers in English
  assert.equal(toServerOptions(view({}), "ja").options.lang, "ja");
  const bad = toServerOptions(view({ lang: "简体中文" }), "zh-cn");
  assert.equal(bad.options.lang, "zh-cn");
  assert.match(bad.problems.join("\n"), /cudaport\.lang.*简体中文.*not a language/);
});

test("bad values are dropped with a problem naming the setting", () => {
  const { options, problems } = toServerOptions(
    view({
      target: "not a target!",
      select: ["E501"],
      severity: { CP1001: "fatal" },
      logLevel: "loud",
      showPortable: "yes",
    }),
  );
  assert.equal(options.target, "");
  assert.equal(options.select, undefined);
  assert.equal(options.severity, undefined);
  assert.equal(options.logLevel, "info");
  assert.equal(options.showPortable, true);
  assert.equal(problems.length, 4);
  assert.match(problems.join("\n"), /cudaport\.showPortable.*true or false/);
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

// The extension's manifest, as VS Code reads it (the tests run from out/test/unit).
const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "package.json"), "utf8"));

test("every setting is listed in order: enable, the target and showPortable first", () => {
  const properties: Record<string, { order?: number; type?: string; default?: unknown }> =
    manifest.contributes.configuration.properties;
  const ordered = Object.entries(properties)
    .map(([key, value]) => [key, value.order] as const)
    .sort((a, b) => (a[1] ?? Infinity) - (b[1] ?? Infinity));
  assert.ok(ordered.every(([, order]) => typeof order === "number"), "a setting without an order");
  assert.equal(new Set(ordered.map(([, order]) => order)).size, ordered.length, "two settings share an order");
  assert.deepEqual(
    ordered.slice(0, 3).map(([key]) => key),
    ["cudaport.enable", "cudaport.target", "cudaport.showPortable"],
  );
  for (const key of ["cudaport.enable", "cudaport.fixAll", "cudaport.codeAction.fix.enable", "cudaport.codeAction.ignoreComment.enable"]) {
    assert.equal(properties[key].type, "boolean", key);
    assert.equal(properties[key].default, true, key);
  }
  assert.equal(properties["cudaport.showPortable"].type, "boolean");
  assert.equal(properties["cudaport.showPortable"].default, true);
});

test("every setting the server reads is one VS Code offers", () => {
  const properties = Object.keys(manifest.contributes.configuration.properties);
  // Every key toServerOptions sends, once each setting has a value (under the server's name where it differs).
  const { options } = toServerOptions(
    view({ select: ["CP1"], extendSelect: ["CP3"], ignore: ["CP2"], severity: { CP1: "hint" }, exclude: ["x/**"] }),
  );
  const settingOf: Record<string, string> = {
    extendExclude: "exclude",
    config: "configuration",
    fixActions: "codeAction.fix.enable",
    ignoreCommentActions: "codeAction.ignoreComment.enable",
  };
  const offered = new Set(properties.map((key) => key.replace(/^cudaport\./, "")));
  for (const key of Object.keys(options)) {
    assert.ok(offered.has(settingOf[key] ?? key), `the server option ${key} has no setting`);
  }
});

test("the tooltip tells the workspace's findings from the open files'", () => {
  const d = (severity: number) => ({ source: "cudaport", severity });
  const counted = scopes(
    [
      ["open.cu", [d(1), d(3), d(3)]],
      ["closed.cu", [d(2), d(3)]],
      ["other.cu", [{ source: "clangd", severity: 1 }]],
      ["clean.cu", []],
    ],
    (file) => file === "open.cu",
  );
  assert.deepEqual(counted.workspace, { counts: { portable: 0, mechanical: 3, manual: 1, blocker: 1 }, files: 2 });
  assert.deepEqual(counted.open, { counts: { portable: 0, mechanical: 2, manual: 0, blocker: 1 }, files: 1 });
  const tooltip = statusTooltip("npu", counted.workspace, counted.open, { npu: "Ascend NPU" });
  assert.match(tooltip, /Ascend NPU/);
  assert.match(tooltip, /^Workspace \(2 files with findings\): blocker 1, manual 1, mechanical 3, portable 0$/m);
  assert.match(tooltip, /^Open files \(1 file with findings\): blocker 1, manual 0, mechanical 2, portable 0$/m);
  assert.doesNotMatch(tooltip, /findings in open files/);
});

test("untrusted workspaces: limited, without the workspace's server, interpreter, configuration and log paths", () => {
  const untrusted = manifest.capabilities.untrustedWorkspaces;
  assert.equal(untrusted.supported, "limited");
  const restricted: string[] = untrusted.restrictedConfigurations;
  assert.deepEqual(
    [...restricted].sort(),
    ["cudaport.configuration", "cudaport.interpreter", "cudaport.logFile", "cudaport.path"],
  );
  const properties = manifest.contributes.configuration.properties;
  for (const key of restricted) assert.ok(key in properties, `${key} is no setting`);
});

test("the description names the six targets, in English and in Chinese", () => {
  const nls = (name: string) => JSON.parse(readFileSync(join(__dirname, "..", "..", "..", name), "utf8"));
  assert.equal(manifest.description, "%description%");
  const english: string = nls("package.nls.json").description;
  for (const target of ["HIP", "ROCm", "Hygon DCU", "Ascend", "Cambricon", "MetaX", "Iluvatar CoreX", "Moore Threads"]) {
    assert.ok(english.includes(target), `${target} in ${english}`);
  }
  const chinese: string = nls("package.nls.zh-cn.json").description;
  for (const target of ["HIP", "海光", "昇腾", "寒武纪", "沐曦", "天数智芯", "摩尔线程"]) {
    assert.ok(chinese.includes(target), `${target} in ${chinese}`);
  }
});
