// End-to-end test of the packaged extension in a real VS Code: code-server in headless Chromium, driven by
// playwright-core with the keyboard. Installs the VSIX, opens a workspace with a CUDA file and a PyTorch script, and
// checks squiggles, the status item and its tooltip, the Problems panel (inventory files too), the hover's table of
// targets, a quick fix written to disk, a target switch, fix-all, migrating the workspace and the migration summary.
// Then a second VS Code whose display language is Chinese (zh-cn): the extension's settings, command titles, status
// item and notifications in Chinese, the display language passed to the server, and the offer to read a GBK file as
// GBK (see chineseScenario for how the display language is set). Then a third with cudaport.enable false at start:
// no server and nothing shown, the server started and stopped as the setting is turned on and off, the configuration
// file cudaport.configuration names, and fix-all on save only while cudaport.fixAll is on.
//
//   node e2e/run.mjs [--vsix path] [--keep] [--scenario en|zh-cn|settings]
// Exit code 0 when every check passes; screenshots of a failure go to e2e/artifacts/ (git-ignored).
// The profile, code-server, the browser and the driving helpers are harness.mjs's (shared with screenshot.mjs).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import {
  defaultVsix, extensionRoot, extensions, goTo, here, hoverRows, init, onDisk, openBrowser, openFile, page, port,
  prepare, problemsText, results, root, row, runCommand, serverLog, startCodeServer, statusTooltipText, step, teardown,
  userData, waitFor, workspace,
} from "./harness.mjs";

const args = process.argv.slice(2);
const keep = args.includes("--keep");
const only = args.includes("--scenario") ? args[args.indexOf("--scenario") + 1] : undefined;
init(args.includes("--vsix") ? args[args.indexOf("--vsix") + 1] : defaultVsix);

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
      // The dialog sets its value again when its folder's listing arrives, which can come after the fill: fill
      // until the path stays.
      await waitFor(
        async () => {
          if ((await input.inputValue()) !== pack) await input.fill(pack);
          await new Promise((r) => setTimeout(r, 500));
          return (await input.inputValue()) === pack;
        },
        "the VSIX's path in the dialog",
        20000,
      );
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

// ---- the settings: enable, configuration, fixAll -----------------------------------------------------------------
// A window that starts with cudaport.enable false, then turned on and off through the workspace's settings file as a
// user edits it. The configuration file the settings name (ci/cudaport-npu.toml: target npu) is not the nearest one
// (there is none: hip would apply), and fix-all runs on save through editor.codeActionsOnSave only while
// cudaport.fixAll is on.
function cudaportLog() {
  // The extension's output channel as VS Code writes it (with the protocol trace: cudaport.trace.server verbose).
  let files = "";
  try {
    files = execFileSync("grep", ["-rl", "--include=*.log", "cudaport.enable", join(userData, "logs")], { encoding: "utf8" });
  } catch {
    return ""; // grep: no file matches yet
  }
  return files.trim().split("\n").map((file) => readFileSync(file, "utf8")).join("\n");
}

async function settingsScenario() {
  const user = {
    "cudaport.enable": false,
    "cudaport.trace.server": "verbose",
    "cudaport.configuration": "${workspaceFolder}/ci/cudaport-npu.toml",
    "cudaport.fixAll": false,
    "editor.codeActionsOnSave": { "source.fixAll.cudaport": "explicit" },
  };
  prepare(["kernel.cu"], user);
  mkdirSync(join(workspace, "ci"), { recursive: true });
  writeFileSync(join(workspace, "ci", "cudaport-npu.toml"), 'target = "npu"\n');
  const workspaceSettings = (values) => {
    mkdirSync(join(workspace, ".vscode"), { recursive: true });
    writeFileSync(join(workspace, ".vscode", "settings.json"), JSON.stringify(values, null, 2));
  };
  const squiggles = page => page.locator('.monaco-editor [class*="squiggly-"]');
  const statusBar = async () => (await page.locator(".statusbar").textContent()) ?? "";
  await startCodeServer();
  await openBrowser();

  await step("settings: with cudaport.enable false no server starts and nothing is shown", async () => {
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator(".monaco-workbench").waitFor({ timeout: 90000 });
    await page.locator(".explorer-folders-view, .explorer-viewlet").first().waitFor({ timeout: 60000 });
    await openFile("kernel.cu");
    await waitFor(() => cudaportLog().includes("cudaport.enable is false: no server is started."), "the extension's word", 60000);
    await new Promise((r) => setTimeout(r, 8000)); // time a started server would have had to show its findings
    if (await squiggles(page).count()) throw new Error("squiggles while cudaport.enable is false");
    if ((await statusBar()).includes("CUDA→")) throw new Error("the status item while cudaport.enable is false");
    if (cudaportLog().includes("initializationOptions")) throw new Error("a server was started");
    await runCommand("cudaport: Show the migration summary");
    await page.locator(".notification-toast", { hasText: "cudaport is turned off (cudaport.enable)" }).first().waitFor({ timeout: 30000 });
  });

  await step("settings: turned on, the server starts and reads the configuration file the setting names (npu)", async () => {
    workspaceSettings({ "cudaport.enable": true });
    await squiggles(page).first().waitFor({ timeout: 90000 });
    await waitFor(async () => (await statusBar()).includes("CUDA→Ascend NPU"), "the status item naming npu, from ci/cudaport-npu.toml", 60000);
    const trace = cudaportLog();
    const expected = JSON.stringify(join(workspace, "ci", "cudaport-npu.toml"));
    if (!trace.includes(`"config": ${expected}`)) throw new Error(`initializationOptions carry no config ${expected}`);
    if (!/"fixAll": false/.test(trace)) throw new Error("initializationOptions carry no fixAll false");
  });

  await step("settings: with cudaport.fixAll false saving applies no fix-all, and the command says it is off", async () => {
    await page.locator(".monaco-editor .view-lines").first().click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("// saved with fixAll off\n");
    await page.keyboard.press("Control+S");
    await waitFor(() => onDisk("kernel.cu").includes("// saved with fixAll off"), "the save on disk", 30000);
    await new Promise((r) => setTimeout(r, 3000));
    if (!onDisk("kernel.cu").includes("cudaFree(device)")) throw new Error("fix-all ran on save with cudaport.fixAll false");
    await runCommand("cudaport: Fix all safe findings in this file");
    await page.locator(".notification-toast", { hasText: "fix-all is turned off (cudaport.fixAll)" }).first().waitFor({ timeout: 30000 });
  });

  await step("settings: with cudaport.fixAll on saving applies fix-all for npu", async () => {
    workspaceSettings({ "cudaport.enable": true, "cudaport.fixAll": true });
    // The server hears of the change through workspace/didChangeConfiguration: save again until it has.
    await waitFor(async () => {
      await page.locator(".monaco-editor .view-lines").first().click();
      await page.keyboard.press("Control+End");
      await page.keyboard.type("/");
      await page.keyboard.press("Control+S");
      await new Promise((r) => setTimeout(r, 1500));
      return onDisk("kernel.cu").includes("aclrtFree(device)");
    }, "the npu rewrites on disk after a save", 60000);
    const text = onDisk("kernel.cu");
    if (!text.includes("#include <acl/acl.h>") || text.includes("cudaMalloc")) throw new Error(`not fixed for npu:\n${text}`);
  });

  await step("settings: turned off at run time, the server stops and its findings and status item go", async () => {
    await squiggles(page).first().waitFor({ timeout: 30000 }); // the launch left for a person (a blocker on npu)
    workspaceSettings({ "cudaport.enable": false, "cudaport.fixAll": true });
    await waitFor(async () => (await squiggles(page).count()) === 0, "no squiggles", 60000);
    await waitFor(async () => !(await statusBar()).includes("CUDA→"), "no status item", 30000);
    await waitFor(() => cudaportLog().includes("cudaport.enable is false: the server is stopped."), "the stop in the log", 30000);
    // and on again: it comes back
    workspaceSettings({ "cudaport.enable": true, "cudaport.fixAll": true });
    await squiggles(page).first().waitFor({ timeout: 90000 });
    await waitFor(async () => (await statusBar()).includes("CUDA→Ascend NPU"), "the status item back", 60000);
  });
}

let failed = false;
for (const [name, scenario] of [["en", englishScenario], ["zh-cn", chineseScenario], ["settings", settingsScenario]]) {
  if (only && only !== name) continue;
  console.log(`e2e: scenario ${name}`);
  try {
    await scenario();
  } catch (error) {
    failed = true;
    console.error(`e2e: ${error?.stack || error}`);
    console.error("--- code-server log (tail) ---\n" + (serverLog ?? []).join("").split("\n").slice(-40).join("\n"));
  } finally {
    await teardown({ keep });
  }
  if (failed) break;
}
console.log(failed ? "e2e: FAILED" : `e2e: all ${results.length} steps passed`);
process.exit(failed ? 1 : 0);