// The extension's words in Chinese: every contribution of package.json (package.nls.json / package.nls.zh-cn.json)
// and every runtime message (the t("...") calls in src/, l10n/bundle.l10n.zh-cn.json), with their placeholders and
// code spans kept; and the status item and tooltip as a Chinese display language shows them.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { bundleTranslator, format, setTranslator, t } from "../../src/l10n";
import { statusText, statusTooltip } from "../../src/status";
import { toServerOptions } from "../../src/settings";

// The tests run from out/test/unit.
const root = join(__dirname, "..", "..", "..");
const readJson = (...parts: string[]) => JSON.parse(readFileSync(join(root, ...parts), "utf8"));
const manifest = readJson("package.json");
const english: Record<string, string> = readJson("package.nls.json");
const chinese: Record<string, string> = readJson("package.nls.zh-cn.json");
const bundle: Record<string, string> = readJson("l10n", "bundle.l10n.zh-cn.json");

/** The messages of the t("...") calls in src/, from their string literals. */
function sourceMessages(): { messages: Set<string>; notLiteral: string[] } {
  const messages = new Set<string>();
  const notLiteral: string[] = [];
  for (const name of readdirSync(join(root, "src"))) {
    if (!name.endsWith(".ts") || name === "l10n.ts") continue;
    const text = readFileSync(join(root, "src", name), "utf8");
    for (const match of text.matchAll(/(?<![\w.$])t\(\s*/g)) {
      const rest = text.slice(match.index + match[0].length);
      const literal = /^("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')\s*[,)]/.exec(rest);
      if (literal) {
        messages.add(new Function(`return ${literal[1]};`)() as string);
      } else {
        notLiteral.push(`${name}: t(${rest.slice(0, 40)}`);
      }
    }
  }
  return { messages, notLiteral };
}

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
const codeSpans = (text: string) => [...text.matchAll(/`[^`]*`/g)].map((m) => m[0]).sort();
const hasChinese = (text: string) => /[\u4e00-\u9fff]/.test(text);

test("every runtime message is a literal in t() and has a Chinese translation with the same placeholders", () => {
  const { messages, notLiteral } = sourceMessages();
  assert.deepEqual(notLiteral, [], "t() takes a string literal (the bundles are checked against them)");
  assert.ok(messages.size > 40, `only ${messages.size} messages found: the extractor is broken`);
  const missing = [...messages].filter((message) => !(message in bundle));
  assert.deepEqual(missing, [], "messages without a Chinese translation");
  const stale = Object.keys(bundle).filter((message) => !messages.has(message));
  assert.deepEqual(stale, [], "translations of messages the code no longer shows");
  for (const [message, translation] of Object.entries(bundle)) {
    assert.deepEqual(placeholders(translation), placeholders(message), `placeholders of ${JSON.stringify(message)}`);
    assert.deepEqual(codeSpans(translation), codeSpans(message), `code spans of ${JSON.stringify(message)}`);
  }
});

test("every contribution is localized: package.json uses %keys% that both nls files define", () => {
  const used = new Set<string>();
  const visit = (value: unknown, where: string): void => {
    if (typeof value === "string") {
      const key = /^%(.+)%$/.exec(value)?.[1];
      if (key) used.add(key);
      return;
    }
    if (Array.isArray(value)) value.forEach((item, i) => visit(item, `${where}[${i}]`));
    else if (value && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        // Words a person reads in the UI must be placeholders, not English in the manifest.
        if (
          ["title", "description", "markdownDescription", "displayName", "enumDescriptions", "markdownEnumDescriptions"].includes(key) &&
          where !== "$.repository"
        ) {
          const texts = Array.isArray(item) ? item : [item];
          for (const text of texts) {
            assert.match(String(text), /^%.+%$/, `${where}.${key} is not localized: ${JSON.stringify(text)}`);
          }
        }
        visit(item, `${where}.${key}`);
      }
    }
  };
  visit(manifest, "$");
  assert.equal(manifest.l10n, "./l10n");
  assert.deepEqual([...used].filter((key) => !(key in english)), [], "keys package.nls.json lacks");
  assert.deepEqual(Object.keys(english).filter((key) => !used.has(key)), [], "keys package.json does not use");
  assert.deepEqual(Object.keys(chinese).sort(), Object.keys(english).sort(), "package.nls.zh-cn.json's keys");
  for (const [key, text] of Object.entries(english)) {
    assert.deepEqual(codeSpans(chinese[key]), codeSpans(text), `code spans of ${key}`);
    if (hasChinese(text) || key === "config.title") continue;
    assert.ok(hasChinese(chinese[key]) || chinese[key] === text, `${key} is not in Chinese: ${chinese[key]}`);
  }
  // The settings and command titles a user sees first
  assert.equal(chinese["command.showSummary.title"], "显示迁移摘要");
});

test("the status item and its tooltip in Chinese", () => {
  setTranslator(bundleTranslator(bundle));
  try {
    const counts = { portable: 4, mechanical: 3, manual: 2, blocker: 1 };
    assert.equal(
      statusText("npu", counts, { npu: "Ascend NPU" }),
      "$(circuit-board) CUDA→Ascend NPU：阻断 1 · 需人工修改 2 · 可机械改写 3",
    );
    const tooltip = statusTooltip("hip", { counts, files: 3 }, { counts, files: 1 }, { hip: "HIP" });
    assert.match(tooltip, /^HIP 的 cudaport 发现项/);
    assert.match(tooltip, /工作区（3 个文件有发现项）：阻断 1，需人工修改 2，可机械改写 3，可直接运行 4/);
    assert.match(tooltip, /打开的文件（1 个文件有发现项）/);
    // settings problems too
    const { problems } = toServerOptions({ get: <T>(key: string, d: T) => (key === "select" ? (["E501"] as T) : d) });
    assert.match(problems[0], /^cudaport\.select：“E501” 不是规则代码或前缀/);
  } finally {
    setTranslator(undefined);
  }
  assert.equal(t("cudaport: no server"), "cudaport: no server");
});

test("format fills named placeholders and keeps unknown ones", () => {
  assert.equal(format("{a} and {b}", { a: 1 }), "1 and {b}");
  assert.equal(bundleTranslator({ "x {n}": { message: "X {n}" } as never })("x {n}", { n: 2 }), "X 2");
});
