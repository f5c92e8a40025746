// The README's editor screenshot: the packaged extension in code-server (headless Debian Chromium, through the e2e
// harness), the repository's examples/ as the workspace, one CUDA file open for one target with its squiggles, the
// hover of one finding open (its message and the table of targets with their difficulties) and the Problems panel
// showing that file's findings. Saved as a PNG of the viewport; tools/screenshots.py calls this and shrinks the file.
//
//   node vscode-extension/e2e/screenshot.mjs --out PNG [--vsix path] [--file cuda/warp_reduce.cu] [--target hip]
//                                            [--at 9:10] [--size 1280x800] [--keep]
import { cpSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import {
  defaultVsix, extensionRoot, goTo, init, openBrowser, openFile, page, port, prepare, runCommand, startCodeServer,
  teardown, waitFor, workspace,
} from "./harness.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const out = resolve(option("--out", join(extensionRoot, "..", "docs", "images", "editor.png")));
const file = option("--file", "cuda/warp_reduce.cu");
const target = option("--target", "hip");
const [line, column] = option("--at", "9:10").split(":").map(Number); // __shfl_down_sync in warp_reduce.cu
const [width, height] = option("--size", "1280x800").split("x").map(Number);
const examples = resolve(extensionRoot, "..", "examples");
init(option("--vsix", defaultVsix));

/** Drags with the mouse from (x, y) by dy pixels down (a sash: a panel's edge, a hover's). */
async function drag(x, y, dy) {
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x, y + dy / 2, { steps: 4 });
  await page.mouse.move(x, y + dy, { steps: 4 });
  await page.mouse.up();
}

/** Makes the hover (shown below its line) tall enough for its table, as far as the editor has room. */
async function growHover(hover) {
  const sizes = await hover.evaluate((node) => {
    const content = node.querySelector(".monaco-hover-content");
    const table = node.querySelector("table");
    const editor = node.closest(".monaco-editor");
    if (!content || !table || !editor) return undefined;
    const box = content.getBoundingClientRect();
    const tableBottom = table.getBoundingClientRect().bottom - box.top + content.scrollTop;
    return { wanted: Math.ceil(tableBottom + 3 - content.clientHeight), room: editor.getBoundingClientRect().bottom - box.bottom - 6 };
  });
  if (!sizes || sizes.wanted <= 0) return;
  const box = await hover.boundingBox();
  await drag(box.x + box.width / 2, box.y + box.height - 1, Math.min(sizes.wanted, sizes.room));
}

async function shoot() {
  prepare([], {
    "cudaport.target": target,
    "workbench.colorTheme": "Default Dark Modern",
    "editor.minimap.enabled": false,
    "editor.hover.sticky": true,
    "workbench.layoutControl.enabled": false,
    "chat.commandCenter.enabled": false,
    "window.commandCenter": false,
    "problems.sortOrder": "position",
    "breadcrumbs.enabled": false,
  });
  cpSync(examples, workspace, { recursive: true });
  await startCodeServer();
  await openBrowser({ width, height });
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
  await page.locator(".monaco-workbench").waitFor({ timeout: 90000 });
  await page.locator(".explorer-folders-view, .explorer-viewlet").first().waitFor({ timeout: 60000 });
  const name = file.split("/").pop();
  await openFile(name);
  await page.locator(".monaco-editor .squiggly-warning, .monaco-editor .squiggly-info").first().waitFor({ timeout: 60000 });
  // The folder of the file open in the Explorer, as a user who clicked through to it sees it.
  await runCommand("File: Reveal Active File in Explorer View");
  // The Problems panel, narrowed to the open file (the workspace's other files have findings of their own).
  await page.keyboard.press("Control+Shift+M");
  const panel = page.locator(".markers-panel").first();
  await panel.waitFor({ timeout: 15000 });
  await page.getByPlaceholder(/^Filter \(e\.g\./).first().fill(`**/${name}`);
  await waitFor(async () => {
    const text = (await panel.textContent()) ?? "";
    return text.includes(name) && !text.includes("CMakeLists.txt");
  }, `the Problems panel narrowed to ${name}`);
  // The panel as tall as the file's findings need, which leaves the editor the rest.
  const rows = await panel.locator(".monaco-list-row").count();
  const panelBox = await page.locator(".part.panel").first().boundingBox();
  const needed = 35 + 22 * (rows + 1) + 8; // its title bar, the file's row and one row per finding
  if (panelBox && panelBox.height > needed) await drag(panelBox.x + panelBox.width / 2, panelBox.y, panelBox.height - needed);
  // The hover of one finding, opened from the keyboard at its position.
  await page.locator(".monaco-editor .view-lines").first().click();
  await goTo(line, column);
  const hover = page.locator(".monaco-hover:not(.hidden)", { hasText: "(configured)" }).first();
  await waitFor(async () => {
    if (!(await hover.isVisible())) {
      await runCommand("Show or Focus Hover");
      await hover.waitFor({ timeout: 5000 });
    }
    return true;
  }, `the hover at ${line}:${column}`, 40000);
  // VS Code caps a hover at 250 px and scrolls the rest; a user drags its lower edge to see the table of targets.
  await growHover(hover);
  await page.mouse.move(width - 2, height / 2);
  await page.waitForTimeout(800); // the hover's fade-in
  mkdirSync(dirname(out), { recursive: true });
  await page.screenshot({ path: out });
  console.log(`screenshot: ${out}`);
}

let failed = false;
try {
  await shoot();
} catch (error) {
  failed = true;
  console.error(`screenshot: ${error?.stack || error}`);
  if (page) await page.screenshot({ path: `${out}.failed.png` }).catch(() => {});
} finally {
  await teardown({ keep: args.includes("--keep") });
}
process.exit(failed ? 1 : 0);
