import assert from "node:assert/strict";
import { test } from "node:test";

import { checkInterpreter, chooseInterpreter, expandPath, isSupported, parseVersion } from "../../src/interpreter";

const none = async () => undefined;

test("the cudaport.interpreter setting wins over everything", async () => {
  const chosen = await chooseInterpreter({
    setting: "${workspaceFolder}/.venv/bin/python",
    pythonExtension: async () => "/usr/bin/python3.12",
    which: async () => "/usr/bin/python3",
    workspaceFolder: "/proj",
  });
  assert.deepEqual(chosen, { path: "/proj/.venv/bin/python", source: "setting" });
});

test("the Python extension's interpreter comes next", async () => {
  const chosen = await chooseInterpreter({ setting: "  ", pythonExtension: async () => "/opt/py/bin/python", which: none });
  assert.deepEqual(chosen, { path: "/opt/py/bin/python", source: "python-extension" });
});

test("a failing Python extension falls through to PATH", async () => {
  const chosen = await chooseInterpreter({
    setting: "",
    pythonExtension: async () => {
      throw new Error("not ready");
    },
    which: async (command) => (command === "python3" ? "/usr/bin/python3" : undefined),
  });
  assert.deepEqual(chosen, { path: "/usr/bin/python3", source: "path" });
});

test("python is tried when python3 is missing, and nothing found is undefined", async () => {
  const python = await chooseInterpreter({
    setting: "",
    pythonExtension: none,
    which: async (command) => (command === "python" ? "/usr/local/bin/python" : undefined),
  });
  assert.equal(python?.path, "/usr/local/bin/python");
  assert.equal(await chooseInterpreter({ setting: "", pythonExtension: none, which: none }), undefined);
});

test("~ and ${workspaceFolder} expand", () => {
  assert.equal(expandPath("~/venv/bin/python", "/w", "/home/u"), "/home/u/venv/bin/python");
  assert.equal(expandPath("${workspaceFolder}/py", "/w", "/home/u"), "/w/py");
  assert.equal(expandPath("/abs/python", "/w", "/home/u"), "/abs/python");
});

test("versions parse and 3.10 is the minimum", () => {
  assert.deepEqual(parseVersion("3.11.7\n"), [3, 11]);
  assert.deepEqual(parseVersion("Python 3.10.2"), [3, 10]);
  assert.equal(parseVersion("garbage"), undefined);
  assert.equal(isSupported([3, 9]), false);
  assert.equal(isSupported([3, 10]), true);
  assert.equal(isSupported([4, 0]), true);
});

test("an old Python gets a message naming the version and the setting", async () => {
  const check = await checkInterpreter({ path: "/usr/bin/python3", source: "path" }, async () => ({
    stdout: "3.8.10\n",
    stderr: "",
  }));
  assert.equal(check.ok, false);
  assert.deepEqual(check.version, [3, 8]);
  assert.match(check.message ?? "", /needs Python 3\.10 or newer.*3\.8\.10.*cudaport\.interpreter/);
});

test("a missing interpreter is reported as not found", async () => {
  const check = await checkInterpreter({ path: "/nope/python", source: "setting" }, async () => {
    throw Object.assign(new Error("spawn /nope/python ENOENT"), { code: "ENOENT" });
  });
  assert.equal(check.ok, false);
  assert.match(check.message ?? "", /not found at \/nope\/python \(from the cudaport\.interpreter setting\)/);
});

test("a real interpreter on this machine passes", async () => {
  const check = await checkInterpreter({ path: "python3", source: "path" });
  assert.equal(check.ok, true, check.message);
});
