// End-to-end test of the packaged extension in a real VS Code: code-server in headless Chromium, driven by
// playwright-core with the keyboard. Installs the VSIX, opens a workspace with a CUDA file and a PyTorch script, and
// checks squiggles, the status item and its tooltip, the Problems panel (inventory files too), the hover's table of
// targets, a quick fix written to disk, a target switch, fix-all, migrating the workspace and the migration summary.
// Then a second VS Code whose display language is Chinese (zh-cn): the extension's settings, command titles, status
// item and notifications in Chinese, the display language passed to the server, and the offer to read a GBK file as
// GBK (see chineseScenario for how the display language is set).
//
//   node e2e/run.mjs [--vsix path] [--keep] [--scenario en|zh-cn]
// Exit code 0 when every check passes; screenshots of a failure go to e2e/artifacts/ (git-ignored).
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const extensionRoot = resolve(here, "..");
const args = process.argv.slice(2);
const vsix = resolve(args.includes("--vsix") ? args[args.indexOf("--vsix") + 1] : join(extensionRoot, "cudaport-linux-x64.vsix"));
const keep = args.includes("--keep");
const only = args.includes("--scenario") ? args[args.indexOf("--scenario") + 1] : undefined;
const artifacts = join(here, "artifacts");
const chromiumPath = process.env.CUDAPORT_CHROMIUM || "/usr/bin/chromium";

function fail(message) {
  console.error(`e2e: ${message}`);
  process.exit(1);
}

if (!existsSync(vsix)) fail(`no VSIX at ${vsix}: run \`npm run package\` first`);
if (!existsSync(chromiumPath)) fail(`no Chromium at ${chromiumPath}: apt-get install chromium`);
execFileSync(join(here, "install.sh"), { stdio: "inherit" });
const require = createRequire(join(here, "package.json"));
const { chromium } = require("playwright-core");
const codeServer = join(here, "node_modules", ".bin", "code-server");

// ---- a throw-away VS Code profile and workspace, and code-server on it ------------------------------------------
let root, home, userData, extensions, workspace, settingsFile, env, common, port, server, serverLog;

/** A fresh profile and workspace (`files` copied from e2e/workspace), with the VSIX installed. */
function prepare(files, settings) {
  root = mkdtempSync(join(tmpdir(), "cudaport-e2e-"));
  home = join(root, "home");
  userData = join(root, "user-data");
  extensions = join(root, "extensions");
  workspace = join(root, "workspace");
  for (const dir of [home, join(userData, "User"), extensions, workspace]) mkdirSync(dir, { recursive: true });
  for (const name of files) copyFileSync(join(here, "workspace", name), join(workspace, name));
  settingsFile = join(userData, "User", "settings.json");
  writeSettings(settings);
  env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_DATA_HOME: join(home, ".local/share") };
  common = ["--user-data-dir", userData, "--extensions-dir", extensions];
  execFileSync(codeServer, [...common, "--install-extension", vsix], { env, stdio: "inherit" });
}

function writeSettings(extra) {
  const settings = {
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "security.workspace.trust.enabled": false,
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "editor.quickSuggestions": { other: false, comments: false, strings: false },
    "files.autoSave": "off",
    "cudaport.interpreter": process.env.CUDAPORT_E2E_PYTHON || "python3",
    ...extra,
  };
  writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
}

async function freePort() {
  return new Promise((resolvePort) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/** code-server on the profile; `folder` is the folder it opens (none: an empty window). */
async function startCodeServer(extraArgs = [], folder = workspace) {
  port = await freePort();
  serverLog = [];
  server = spawn(
    codeServer,
    [
      ...common, "--bind-addr", `127.0.0.1:${port}`, "--auth", "none", "--disable-telemetry", "--disable-update-check",
      "--disable-workspace-trust", "--disable-getting-started-override", ...extraArgs, ...(folder ? [folder] : []),
    ],
    { env, stdio: ["ignore", "pipe", "pipe"] },
  );
  server.stdout.on("data", (chunk) => serverLog.push(String(chunk)));
  server.stderr.on("data", (chunk) => serverLog.push(String(chunk)));
  await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60000);
}

async function waitForHttp(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer at ${url}`);
}

// ---- the scenario ------------------------------------------------------------------------------------------------
let browser;
let page;
const results = [];
async function step(name, body) {
  const started = Date.now();
  try {
    await body();
    results.push(`ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    console.log(results.at(-1));
  } catch (error) {
    mkdirSync(artifacts, { recursive: true });
    const shot = join(artifacts, `${name.replace(/[^a-z0-9]+/gi, "-")}.png`);
    if (page) await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
    console.error(`FAIL ${name}: ${error?.stack || error}\n  screenshot: ${shot}`);
    throw error;
  }
}

async function waitFor(predicate, what, timeoutMs = 60000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await predicate();
      if (last) return last;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ""}`);
}

async function runCommand(title) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(`>${title}`);
  await waitFor(
    async () => (await page.locator(".quick-input-list .monaco-list-row").first().textContent())?.includes(title.split(": ").pop()),
    `the command "${title}" in the palette`,
    20000,
  );
  await page.keyboard.press("Enter");
}

async function openFile(name) {
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(name);
  await waitFor(
    async () => (await page.locator(".quick-input-list .monaco-list-row").first().textContent())?.includes(name),
    `${name} in quick open`,
  );
  await page.keyboard.press("Enter");
  await page.locator(`.tab.active:has-text("${name}")`).waitFor({ timeout: 30000 });
  await page.locator(".monaco-editor .view-lines").first().waitFor();
}

async function goTo(line, column) {
  await page.keyboard.press("Control+G");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(`:${line}:${column}`);  // the go-to-line mode of quick input starts with ":"
  await page.keyboard.press("Enter");
  await waitFor(
    async () => (await page.locator(".statusbar-item[id$='status.editor.selection']").textContent())?.includes(`Ln ${line}, Col ${column}`),
    `the cursor at ${line}:${column}`,
    15000,
  );
}

async function problemsText() {
  // A step that moved the focus (quick open, a quick fix) may have left the Problems panel closed: open it again
  // rather than wait for a panel that is not there.
  const panel = page.locator(".markers-panel").first();
  if (!(await panel.isVisible())) {
    await page.keyboard.press("Control+Shift+M");
    await panel.waitFor({ timeout: 15000 });
  }
  return (await panel.textContent()) ?? "";
}

// The hover at a position, as the table of targets it shows: rows of [target, counterpart, difficulty].
async function hoverRows(line, column) {
  await page.locator(".monaco-editor .view-lines").first().click();
  await goTo(line, column);
  const table = page.locator(".monaco-hover:not(.hidden) table").first();
  return waitFor(async () => {
    if (!(await table.isVisible())) {
      await runCommand("Show or Focus Hover");
      await table.waitFor({ timeout: 5000 });
    }
    const rows = await table.locator("tr").evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td, th")].map((cell) => (cell.textContent ?? "").trim())),
    );
    return rows.some((row) => row[0]?.includes("(configured)")) ? rows : undefined;
  }, `the hover's table at ${line}:${column}`, 40000);
}

function row(rows, target) {
  const found = rows.find((cells) => cells[0].replace(" (configured)", "") === target);
  if (!found) throw new Error(`no row for ${target} in ${JSON.stringify(rows)}`);
  return found;
}

async function statusTooltipText() {
  const item = page.locator(".statusbar-item", { hasText: "CUDA→" }).first();
  const hover = page.locator(".workbench-hover, .monaco-hover:not(.hidden)", { hasText: "Open files" }).first();
  return waitFor(async () => {
    await page.mouse.move(0, 0);
    await item.hover();
    await hover.waitFor({ timeout: 4000 });
    return (await hover.textContent()) ?? "";
  }, "the status item's tooltip", 30000);
}

function onDisk(name) {
  return readFileSync(join(workspace, name), "utf8");
}

async function openBrowser() {
  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync",
    ],  // Playwright gives every launch a fresh, temporary profile
  });
  page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  page.on("pageerror", (error) => console.log(`[page error] ${error.message}`));
}

async function englishScenario() {
  prepare(["kernel.cu", "train.py", "Dockerfile", "requirements.txt"], { "cudaport.target": "hip" });
  await startCodeServer();
  await openBrowser();

  await step("workbench loads", async () => {
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator(".monaco-workbench").waitFor({ timeout: 90000 });
    await page.locator(".explorer-folders-view, .explorer-viewlet").first().waitFor({ timeout: 60000 });
  });

  await step("squiggle on cudaMalloc and the status item", async () => {
    await openFile("kernel.cu");
    await page.locator(".monaco-editor .squiggly-info").first().waitFor({ timeout: 60000 });
    await waitFor(
      async () => (await page.locator(".statusbar").textContent())?.includes("CUDA→HIP"),
      "the cudaport status item",
    );
  });

  await step("the status item's tooltip tells the workspace from the open files", async () => {
    // kernel.cu is the one open file; the workspace's other files (train.py, Dockerfile, requirements.txt) come
    // from the server's workspace diagnostics.
    const counts = await waitFor(async () => {
      const text = await statusTooltipText();
      const workspace = /Workspace \((\d+) files? with findings\)/.exec(text);
      const open = /Open files \((\d+) files? with findings\)/.exec(text);
      return workspace && open && Number(workspace[1]) > Number(open[1]) ? [Number(workspace[1]), Number(open[1]), text] : undefined;
    }, "a tooltip counting the workspace's files apart from the open one", 60000);
    console.log(`     tooltip: ${counts[2].replace(/\s+/g, " ")}`);
    if (counts[1] !== 1) throw new Error(`one open file with findings expected: ${counts[2]}`);
    if (counts[2].includes("findings in open files")) throw new Error(`the old wording: ${counts[2]}`);
    await page.mouse.move(0, 0);
  });

  await step("the hover on a kernel launch rates it per target (portable on HIP)", async () => {
    const rows = await hoverRows(14, 3);
    console.log(`     hover: ${JSON.stringify(rows)}`);
    const hip = row(rows, "HIP");
    if (!hip[0].includes("(configured)") || hip[2] !== "portable") throw new Error(`HIP row: ${JSON.stringify(hip)}`);
    const npu = row(rows, "Ascend NPU");
    if (npu[2] !== "blocker" || !npu[1].includes("Ascend C")) throw new Error(`Ascend NPU row: ${JSON.stringify(npu)}`);
    await page.keyboard.press("Escape");
  });

  await step("Problems panel lists the findings", async () => {
    await page.keyboard.press("Control+Shift+M");
    await page.locator(".markers-panel").first().waitFor();
    await waitFor(async () => {
      const text = await problemsText();
      return text.includes("cudaMalloc") && text.includes("hipMalloc") && text.includes("CP1001");
    }, "cudaMalloc → hipMalloc in the Problems panel");
  });

  await step("inventory files: a Dockerfile and a requirements file get their findings", async () => {
    await openFile("Dockerfile");
    await waitFor(async () => {
      const text = await problemsText();
      return text.includes("CP8201") && text.includes("nvidia/cuda");
    }, "the CUDA base image in the Problems panel", 60000);
    await openFile("requirements.txt");
    await waitFor(async () => {
      const text = await problemsText();
      return text.includes("CP8101") && text.includes("+rocm6.2");
    }, "the CUDA wheel and its ROCm build in the Problems panel", 60000);
    await openFile("kernel.cu");
  });

  await step("Ctrl+. on cudaMalloc applies hipMalloc and the saved file changes", async () => {
    await page.locator(".monaco-editor .view-lines").first().click();
    await goTo(12, 5);
    const menu = page.locator(".action-widget, .context-view .monaco-list");
    await waitFor(async () => {
      await page.keyboard.press("Control+.");
      await menu.first().waitFor({ timeout: 4000 });
      return true;
    }, "the quick-fix menu", 30000);
    const item = page.locator(".action-widget .monaco-list-row, .context-view .monaco-list-row", { hasText: "hipMalloc" }).first();
    await item.waitFor({ timeout: 15000 });
    await waitFor(async () => {
      const focused = await page.locator(".action-widget .monaco-list-row.focused, .context-view .monaco-list-row.focused").first().textContent();
      if (focused?.includes("hipMalloc")) return true;
      await page.keyboard.press("ArrowDown");
      return false;
    }, "the hipMalloc fix focused", 15000);
    await page.keyboard.press("Enter");
    await page.keyboard.press("Control+S");
    await waitFor(() => onDisk("kernel.cu").includes("hipMalloc(&device"), "hipMalloc on disk");
    if (!onDisk("kernel.cu").includes("cudaFree(device)")) throw new Error("the quick fix changed more than its finding");
  });

  await step("fix-all rewrites the rest of the file", async () => {
    await runCommand("cudaport: Fix all safe findings in this file");
    await waitFor(
      async () => (await page.locator(".monaco-editor .view-lines").first().textContent())?.includes("hipFree(device)"),
      "the fix-all edit in the editor",
    );
    await page.locator(".monaco-editor .view-lines").first().click();
    await page.keyboard.press("Control+S");
    await waitFor(() => {
      const text = onDisk("kernel.cu");
      return text.includes("hipFree(device)") && text.includes("#include <hip/hip_runtime.h>") && !/\bcuda[A-Z]/.test(text);
    }, "every CUDA runtime call rewritten on disk");
    // Nothing left to fix: the command says so instead of doing nothing silently.
    await runCommand("cudaport: Fix all safe findings in this file");
    await page.locator(".notification-toast", { hasText: "no safe fixes in this file" }).first().waitFor({ timeout: 30000 });
  });

  await step("with no target set, the project's cudaport.toml decides (npu)", async () => {
    await openFile("train.py");
    await page.keyboard.press("Control+Shift+M");
    // On HIP the PyTorch calls are portable (hints), which the Problems panel does not list.
    await waitFor(async () => !(await problemsText()).includes("train.py"), "no train.py problems for hip", 20000);
    writeFileSync(join(workspace, "cudaport.toml"), 'target = "npu"\n');
    // the workspace's settings clear the user's `hip` (VS Code watches the workspace's settings file): the extension
    // now sends an empty target, which leaves the choice to the project's file
    mkdirSync(join(workspace, ".vscode"), { recursive: true });
    writeFileSync(join(workspace, ".vscode", "settings.json"), JSON.stringify({ "cudaport.target": "" }, null, 2));
    await waitFor(async () => {
      const text = await problemsText();
      return text.includes("train.py") && /npu/i.test(text);
    }, "npu findings for train.py from cudaport.toml", 60000);
    await waitFor(
      async () => (await page.locator(".statusbar").textContent())?.includes("CUDA→Ascend NPU"),
      "the status item naming the project's target with the rule data's label",
    );
    // back to hip through the setting, which overrides the file as --target does
    writeFileSync(join(workspace, ".vscode", "settings.json"), JSON.stringify({ "cudaport.target": "hip" }, null, 2));
    await waitFor(async () => !(await problemsText()).includes("train.py"), "hip again from the setting", 60000);
  });

  await step("switching the target to npu changes the Python findings", async () => {
    await openFile("train.py");
    await page.keyboard.press("Control+Shift+M");
    await waitFor(async () => !(await problemsText()).includes("train.py"), "no train.py problems for hip", 20000);
    // The workspace's own settings file, as a user would commit it (VS Code watches the workspace for it).
    writeFileSync(join(workspace, ".vscode", "settings.json"), JSON.stringify({ "cudaport.target": "npu" }, null, 2));
    await waitFor(async () => {
      const text = await problemsText();
      return text.includes("train.py") && /npu/i.test(text);
    }, "npu findings for train.py in the Problems panel", 60000);
    await waitFor(
      async () => (await page.locator(".statusbar").textContent())?.includes("CUDA→Ascend NPU"),
      "the status item showing the npu target",
    );
  });

  await step("the hover on a Python API rates it per target (mechanical on npu)", async () => {
    await openFile("train.py");
    const rows = await hoverRows(11, 11); // torch.cuda.synchronize()
    console.log(`     hover: ${JSON.stringify(rows)}`);
    const npu = row(rows, "Ascend NPU");
    if (!npu[0].includes("(configured)") || npu[1] !== "torch.npu.synchronize" || npu[2] !== "mechanical") {
      throw new Error(`Ascend NPU row: ${JSON.stringify(npu)}`);
    }
    const hip = row(rows, "HIP");
    if (hip[2] !== "portable") throw new Error(`HIP row: ${JSON.stringify(hip)}`);
    await page.keyboard.press("Escape");
  });

  await step("migrate the workspace: preview, apply, save", async () => {
    await runCommand("cudaport: Migrate the workspace");
    // VS Code shows the changes that need confirmation in its refactor preview before writing anything.
    const apply = page.getByRole("button", { name: "Apply", exact: true });
    await apply.waitFor({ timeout: 60000 });
    if (onDisk("train.py").includes("torch.npu")) throw new Error("the preview wrote files before they were accepted");
    // Changes that need confirmation start unchecked: the user ticks the files to migrate (here all), then applies.
    const unchecked = page.locator("input.edit-checkbox:not(:checked)");
    await waitFor(async () => {
      if ((await unchecked.count()) === 0) return true;
      await unchecked.first().click();
      return false;
    }, "every change of the preview ticked", 20000);
    await apply.click();
    await runCommand("File: Save All Files");
    await waitFor(() => {
      const text = onDisk("train.py");
      return text.includes("torch.npu.synchronize()") && text.includes(".npu()") && text.split("import torch_npu").length === 2;
    }, "train.py migrated to torch_npu on disk");
  });

  await step("the migration summary opens as a read-only document with workspace-relative paths", async () => {
    await runCommand("cudaport: Show the migration summary");
    await page.locator('.tab:has-text("Migration summary.md")').first().waitFor({ timeout: 90000 });
    const editor = page.locator(".monaco-editor .view-lines", { hasText: "CUDA migration assessment" }).first();
    await editor.waitFor({ timeout: 30000 });
    if (await page.locator('.tab:has-text("Untitled")').count()) throw new Error("the summary opened as an untitled document");
    // Read-only: typing changes nothing.
    await editor.click();
    await page.keyboard.press("Control+Home");
    await page.keyboard.type("x");
    if ((await editor.textContent())?.startsWith("x")) throw new Error("the summary document can be edited");
    // Paths relative to the workspace: the files are named, the workspace's absolute path nowhere.
    const editorElement = await editor.elementHandle();
    const input = page.locator(".find-widget.visible textarea, .find-widget.visible input").first();
    async function matches(text) {
      // The preview beside it may take the focus whenever it renders again: focus the document's own editor (held
      // by its element: once the find scrolls, the heading the locator matched is out of view) and open its find
      // widget, again until it shows.
      await waitFor(async () => {
        if (await input.isVisible()) return true;
        await editorElement.click();
        await page.keyboard.press("Control+F");
        await input.waitFor({ timeout: 2000 }).catch(() => {});
        return input.isVisible();
      }, "the summary's find widget", 30000);
      await input.fill(text);
      return waitFor(async () => {
        const count = (await page.locator(".find-widget .matchesCount").first().textContent())?.trim();
        return count && count !== "?" ? count : undefined;
      }, `the find widget's count for ${text}`, 15000);
    }
    const named = await matches("kernel.cu");
    if (/No results/i.test(named)) throw new Error(`kernel.cu is not named in the summary (${named})`);
    const absolute = await matches(workspace);
    console.log(`     find: kernel.cu ${named}; ${workspace} ${absolute}`);
    if (!/No results/i.test(absolute)) throw new Error(`the summary names the workspace's absolute path (${absolute})`);
    await page.keyboard.press("Escape");
  });
}

// ---- the display language zh-cn --------------------------------------------------------------------------------
// How VS Code gets the display language here: a user picks it with "Configure Display Language", which installs the
// language pack (MS-CEINTL.vscode-language-pack-zh-hans, from the marketplace; code-server's is Open VSX) and writes
// "locale": "zh-cn" to argv.json. Neither marketplace is reachable from these machines, and code-server's --locale
// alone changes nothing: without an installed pack for the locale VS Code falls back to English (its NLS
// configuration resolves "en"), and so would every extension. So the test installs a language pack of its own
// (e2e/language-pack-zh-cn: it declares zh-cn as the real one does, with no translations of VS Code's own words)
// the way a user installs a VSIX, through the running VS Code, which is what records it in languagepacks.json, and
// starts code-server with --locale zh-cn. VS Code then runs in zh-cn: vscode.env.language is "zh-cn", the
// extension's package.nls.zh-cn.json and l10n/bundle.l10n.zh-cn.json are loaded, while VS Code's own menus and
// commands stay English (which the steps below rely on to drive them).

// A CUDA file whose comments are Chinese saved in GBK, as older projects in China have them. The bytes are those of
// LEGACY_GBK_TEXT encoded as GBK (checked below by decoding them).
const LEGACY_GBK_TEXT =
  "// 旧代码：注释用 GBK 编码保存（为海光 DCU 迁移前的版本）\n#include <cuda_runtime.h>\n\nvoid allocate(float **p, size_t n) {\n" +
  "  cudaMalloc(p, n * sizeof(float));  // 分配设备内存\n}\n";
const LEGACY_GBK_HEX =
  "2f2f20bec9b4fac2eba3bad7a2cacdd3c32047424b20b1e0c2ebb1a3b4e6a3a8ceaabaa3b9e22044435520c7a8d2c6c7b0b5c4b0e6b1bea3a90a" +
  "23696e636c756465203c637564615f72756e74696d652e683e0a0a766f696420616c6c6f6361746528666c6f6174202a2a702c2073697a655f74" +
  "206e29207b0a2020637564614d616c6c6f6328702c206e202a2073697a656f6628666c6f617429293b20202f2f20b7d6c5e4c9e8b1b8c4dab4e6" +
  "0a7d0a";

function languagePackVsix() {
  const vsce = createRequire(join(extensionRoot, "package.json")).resolve("@vscode/vsce/vsce");
  const out = join(root, "language-pack-zh-cn.vsix");
  execFileSync(process.execPath, [vsce, "package", "--allow-missing-repository", "--skip-license", "--out", out], {
    cwd: join(here, "language-pack-zh-cn"),
    stdio: ["ignore", "ignore", "inherit"],
  });
  return out;
}

/** Whatever a cudaport finding's hover says, as text. */
async function hoverText(line, column) {
  await page.locator(".monaco-editor .view-lines").first().click();
  await goTo(line, column);
  const hover = page.locator(".monaco-hover:not(.hidden)", { hasText: "HIP" }).first();
  return waitFor(async () => {
    if (!(await hover.isVisible())) {
      await runCommand("Show or Focus Hover");
      await hover.waitFor({ timeout: 5000 });
    }
    return (await hover.textContent()) ?? "";
  }, `the hover at ${line}:${column}`, 40000);
}

const CJK = /[\u4e00-\u9fff]/;

async function chineseScenario() {
  prepare(["kernel.cu"], { "cudaport.target": "hip", "cudaport.trace.server": "verbose" });
  const gbk = Buffer.from(LEGACY_GBK_HEX, "hex");
  if (new TextDecoder("gbk").decode(gbk) !== LEGACY_GBK_TEXT) throw new Error("the GBK fixture's bytes are not its text");
  writeFileSync(join(workspace, "legacy_gbk.cu"), gbk);
  const pack = languagePackVsix();
  // An empty window first (no folder: the extension does not start), where the language pack is installed.
  await startCodeServer(["--locale", "zh-cn"], null);
  await openBrowser();

  await step("zh-cn: the language pack installs from its VSIX and VS Code runs in zh-cn", async () => {
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.locator(".monaco-workbench").waitFor({ timeout: 90000 });
    await page.locator(".statusbar").waitFor({ timeout: 60000 });
    const before = await page.evaluate(() => globalThis._VSCODE_NLS_LANGUAGE);
    if (before === "zh-cn") throw new Error("zh-cn before any language pack: the test would prove nothing");
    const packs = join(userData, "languagepacks.json");
    await waitFor(async () => {
      await runCommand("Extensions: Install from VSIX...");
      // VS Code's simple file dialog: a quick input titled after the command, that takes a path
      await page.locator(".quick-input-widget .quick-input-title", { hasText: "Install from VSIX" }).waitFor({ timeout: 10000 });
      const input = page.locator(".quick-input-widget input");
      await waitFor(async () => (await input.inputValue()).startsWith("/"), "the dialog's folder", 10000);
      await input.fill(pack);
      await waitFor(async () => (await input.inputValue()) === pack, "the VSIX's path in the dialog", 10000);
      await page.locator(".quick-input-widget .monaco-button", { hasText: /^Install$/ }).first().click();
      await waitFor(() => existsSync(packs) && readFileSync(packs, "utf8").includes('"zh-cn"'), "languagepacks.json", 20000);
      return true;
    }, "the language pack installed", 60000);
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator(".monaco-workbench").waitFor({ timeout: 90000 });
    await page.locator(".explorer-folders-view, .explorer-viewlet").first().waitFor({ timeout: 60000 });
    const language = await page.evaluate(() => globalThis._VSCODE_NLS_LANGUAGE);
    if (language !== "zh-cn") throw new Error(`the display language is ${language}, not zh-cn`);
  });

  await step("zh-cn: the GBK file is named in a Chinese offer, whose answer sets files.encoding", async () => {
    const toast = page.locator(".notification-toast", { hasText: "legacy_gbk.cu" }).first();
    await toast.waitFor({ timeout: 90000 });
    const text = (await toast.locator(".notification-list-item-message").textContent()) ?? "";
    console.log(`     offer: ${text.replace(/\s+/g, " ")}`);
    if (!text.includes("GBK") || !text.includes("乱码")) throw new Error(`not the Chinese GBK offer: ${text}`);
    if (text.includes("kernel.cu")) throw new Error(`the UTF-8 file is named as GBK: ${text}`);
    await toast.getByRole("button", { name: "在此工作区使用 GBK" }).click();
    const workspaceSettings = join(workspace, ".vscode", "settings.json");
    await waitFor(
      () => existsSync(workspaceSettings) && /"files\.encoding":\s*"gbk"/.test(readFileSync(workspaceSettings, "utf8")),
      "files.encoding = gbk in the workspace's settings",
      20000,
    );
    // The GBK file now reads as Chinese in the editor (and cudaport still finds its cudaMalloc).
    await openFile("legacy_gbk.cu");
    await waitFor(
      async () => (await page.locator(".monaco-editor .view-lines").first().textContent())?.includes("分配设备内存"),
      "the GBK comment shown as Chinese",
      30000,
    );
  });

  await step("zh-cn: the status item speaks Chinese", async () => {
    await openFile("kernel.cu");
    const text = await waitFor(async () => {
      const bar = (await page.locator(".statusbar").textContent()) ?? "";
      return bar.includes("CUDA→HIP：阻断") ? bar : undefined;
    }, "the status item in Chinese", 60000);
    console.log(`     status: ${text.slice(text.indexOf("CUDA→"), text.indexOf("CUDA→") + 40)}`);
  });

  await step("zh-cn: the server was told the display language", async () => {
    // The protocol trace (cudaport.trace.server = verbose) in the extension's output channel, as VS Code logs it.
    const initialize = await waitFor(() => {
      const logs = execFileSync("grep", ["-rl", "--include=*.log", "initializationOptions", join(userData, "logs")], {
        encoding: "utf8",
      }).trim();
      return logs ? readFileSync(logs.split("\n")[0], "utf8") : undefined;
    }, "the initialize request in the cudaport log", 20000);
    if (!/"lang":\s*"zh-cn"/.test(initialize)) throw new Error("initializationOptions carry no lang zh-cn");
    if (!/"locale":\s*"zh-cn"/.test(initialize)) throw new Error("initialize carries no locale zh-cn");
  });

  await step("zh-cn: the server's hover follows the display language", async () => {
    // The server's messages come from its catalogue (rules/locale/zh-CN/*.po, in the bundled server).
    const catalogue = join(extensions, readdirSync(extensions).find((name) => name.startsWith("cudaport.cudaport-")),
      "bundled", "libs", "cudaport", "_rules", "locale", "zh-CN");
    await openFile("kernel.cu");
    const text = await hoverText(14, 3);
    console.log(`     hover: ${text.replace(/\s+/g, " ").slice(0, 160)}`);
    if (existsSync(catalogue) && readdirSync(catalogue).some((name) => name.endsWith(".po"))) {
      if (!CJK.test(text)) throw new Error(`the hover is not in Chinese: ${text}`);
    } else {
      console.log("     (the bundled server has no zh-CN catalogue yet: its messages are not checked)");
    }
    await page.keyboard.press("Escape");
  });

  await step("zh-cn: cudaport's settings are described in Chinese in the Settings UI", async () => {
    await runCommand("Preferences: Open Settings (UI)");
    const editor = page.locator(".settings-editor").first();
    await editor.waitFor({ timeout: 30000 });
    const search = async (query, expected) => {
      await page.keyboard.press("Control+A");
      await page.keyboard.type(query);
      await waitFor(async () => {
        const shown = (await editor.textContent()) ?? "";
        return expected.every((text) => shown.includes(text));
      }, `${expected.join(", ")} in the Settings UI`, 30000);
    };
    await search("cudaport", ["要迁移到的加速器", "边输入边检查"]); // the target's and run's descriptions
    await search("cudaport.lang", ["cudaport 消息（诊断、悬停提示、快速修复、迁移摘要）使用的语言"]);
  });

  await step("zh-cn: a command title in Chinese in the command palette runs the summary", async () => {
    await runCommand("cudaport: 显示迁移摘要");
    await page.locator('.tab:has-text("迁移摘要.md")').first().waitFor({ timeout: 90000 });
  });

}

async function teardown() {
  if (browser) await browser.close().catch(() => {});
  browser = undefined;
  page = undefined;
  if (server) server.kill("SIGTERM");
  server = undefined;
  if (root && !keep) rmSync(root, { recursive: true, force: true });
  else if (root) console.log(`kept ${root}`);
  root = undefined;
}

let failed = false;
for (const [name, scenario] of [["en", englishScenario], ["zh-cn", chineseScenario]]) {
  if (only && only !== name) continue;
  console.log(`e2e: scenario ${name}`);
  try {
    await scenario();
  } catch (error) {
    failed = true;
    console.error(`e2e: ${error?.stack || error}`);
    console.error("--- code-server log (tail) ---\n" + (serverLog ?? []).join("").split("\n").slice(-40).join("\n"));
  } finally {
    await teardown();
  }
  if (failed) break;
}
console.log(failed ? "e2e: FAILED" : `e2e: all ${results.length} steps passed`);
process.exit(failed ? 1 : 0);
