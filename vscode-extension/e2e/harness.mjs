// What the end-to-end test and the README's screenshots share: a throw-away VS Code profile and workspace with the
// VSIX installed, code-server on it, headless Chromium (Debian's) on code-server through playwright-core, and the
// keyboard-driven helpers that open files, run commands, move the cursor and read the hover and the Problems panel.
// Call init(vsix) first. The profile's paths, `page` and the server's log are live bindings: read them after
// prepare(), startCodeServer() and openBrowser() have set them.
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const here = dirname(fileURLToPath(import.meta.url));
export const extensionRoot = resolve(here, "..");
export const defaultVsix = join(extensionRoot, "cudaport-linux-x64.vsix");
const artifacts = join(here, "artifacts");
export const chromiumPath = process.env.CUDAPORT_CHROMIUM || "/usr/bin/chromium";

export function fail(message) {
  console.error(`e2e: ${message}`);
  process.exit(1);
}

let vsix, chromium;
const codeServer = join(here, "node_modules", ".bin", "code-server");

/** Checks the VSIX, Chromium, code-server and playwright-core (installed beforehand by tools/prerequisites.sh,
 * or e2e/install.sh alone), and loads the latter. */
export function init(vsixPath = defaultVsix) {
  vsix = resolve(vsixPath);
  if (!existsSync(vsix)) fail(`no VSIX at ${vsix}: run \`npm run package\` first`);
  if (!existsSync(chromiumPath)) fail(`no Chromium at ${chromiumPath}: run tools/prerequisites.sh`);
  if (!existsSync(codeServer) || !existsSync(join(here, "node_modules", "playwright-core"))) {
    fail("code-server or playwright-core is missing: run tools/prerequisites.sh (or vscode-extension/e2e/install.sh)");
  }
  ({ chromium } = createRequire(join(here, "package.json"))("playwright-core"));
}

// ---- a throw-away VS Code profile and workspace, and code-server on it ------------------------------------------
export let root, home, userData, extensions, workspace, settingsFile, env, common, port, server, serverLog;

/** A fresh profile and workspace (`files` copied from e2e/workspace), with the VSIX installed. */
export function prepare(files, settings) {
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

export function writeSettings(extra) {
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
export async function startCodeServer(extraArgs = [], folder = workspace) {
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

export async function waitForHttp(url, timeoutMs) {
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
export let browser;
export let page;
export const results = [];
export async function step(name, body) {
  const started = Date.now();
  try {
    await body();
    results.push(`ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    console.log(results.at(-1));
  } catch (error) {
    mkdirSync(artifacts, { recursive: true });
    const shot = join(artifacts, `${name.replace(/[^a-z0-9]+/gi, "-")}.png`);
    if (page) await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
    console.error(`FAIL ${name}: ${error?.stack || error}\n  screenshot: ${shot}\n${await whatShows()}`);
    throw error;
  }
}

// What the window showed when a step failed, in words (CI keeps the log, not always the screenshot): the tabs and
// the start of each visible editor's text.
async function whatShows() {
  if (!page) return "";
  try {
    const tabs = await page.locator(".tab").allTextContents();
    const editors = await page.locator(".monaco-editor .view-lines").allTextContents();
    const shown = editors.map((text, i) => `  editor ${i + 1}: ${JSON.stringify(text.slice(0, 200))}`);
    return [`  tabs: ${JSON.stringify(tabs.map((tab) => tab.trim()))}`, ...shown].join("\n");
  } catch (error) {
    return `  (the window could not be read: ${error})`;
  }
}

export async function waitFor(predicate, what, timeoutMs = 60000) {
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

export async function runCommand(title) {
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

export async function openFile(name) {
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

export async function goTo(line, column) {
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

export async function problemsText() {
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
export async function hoverRows(line, column) {
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

export function row(rows, target) {
  const found = rows.find((cells) => cells[0].replace(" (configured)", "") === target);
  if (!found) throw new Error(`no row for ${target} in ${JSON.stringify(rows)}`);
  return found;
}

export async function statusTooltipText() {
  const item = page.locator(".statusbar-item", { hasText: "CUDA→" }).first();
  const hover = page.locator(".workbench-hover, .monaco-hover:not(.hidden)", { hasText: "Open files" }).first();
  return waitFor(async () => {
    await page.mouse.move(0, 0);
    await item.hover();
    await hover.waitFor({ timeout: 4000 });
    return (await hover.textContent()) ?? "";
  }, "the status item's tooltip", 30000);
}

export function onDisk(name) {
  return readFileSync(join(workspace, name), "utf8");
}

export async function openBrowser(viewport = { width: 1500, height: 950 }) {
  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync",
    ],  // Playwright gives every launch a fresh, temporary profile
  });
  page = await browser.newPage({ viewport });
  page.on("pageerror", (error) => console.log(`[page error] ${error.message}`));
}

/** Closes the browser, stops code-server and removes the profile (unless `keep`). */
export async function teardown({ keep = false } = {}) {
  if (browser) await browser.close().catch(() => {});
  browser = undefined;
  page = undefined;
  if (server) server.kill("SIGTERM");
  server = undefined;
  if (root && !keep) rmSync(root, { recursive: true, force: true });
  else if (root) console.log(`kept ${root}`);
  root = undefined;
}
