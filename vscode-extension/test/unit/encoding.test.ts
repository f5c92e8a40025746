// The GBK detector behind the files.encoding offer: what counts as GBK, what does not, and the bounds on reading.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import { classify, readPrefix, survey } from "../../src/encoding";
import { INVENTORY_PATTERNS, SOURCE_PATTERNS, globOf, sourcesFirst } from "../../src/fileKinds";

// "// 中文注释" (a Chinese comment) in GBK: 中 D6D0, 文 CEC4, 注 D7A2, 释 CACD.
const GBK_COMMENT = Uint8Array.from([0x2f, 0x2f, 0x20, 0xd6, 0xd0, 0xce, 0xc4, 0xd7, 0xa2, 0xca, 0xcd, 0x0a]);
const utf8 = (text: string) => new TextEncoder().encode(text);
const join2 = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((part) => [...part]));

test("ASCII, UTF-8 and GBK files are told apart", () => {
  assert.equal(classify(utf8("cudaMalloc(&p, n);\n")), "ascii");
  assert.equal(classify(utf8("// 中文注释\ncudaMalloc(&p, n);\n")), "utf-8");
  assert.equal(classify(utf8("\ufeff// with a BOM\n")), "utf-8");
  assert.equal(classify(join2(utf8("#include <cuda.h>\n"), GBK_COMMENT, utf8("int main() {}\n"))), "gbk");
  // GB18030's four-byte form (U+00E9 é is 0x81 0x30 0x86 0x30) with Chinese beside it
  assert.equal(classify(join2(GBK_COMMENT, Uint8Array.from([0x81, 0x30, 0x86, 0x30]))), "gbk");
});

test("Latin-1, binary and UTF-16 are not offered as GBK", () => {
  assert.equal(classify(Uint8Array.from([...utf8("caf"), 0xe9, 0x20, ...utf8("au lait\n")])), "other"); // "café au lait"
  // Bytes that happen to be valid GBK but no Chinese text (0xA8 0xA6 is GBK's pinyin é) are not offered either.
  assert.equal(classify(Uint8Array.from([0x63, 0x61, 0x66, 0xa8, 0xa6, 0x0a])), "other");
  assert.equal(classify(Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0xd6, 0xd0])), "other");
  assert.equal(classify(Uint8Array.from([0xff, 0xfe, 0x2d, 0x4e, 0x87, 0x65])), "other"); // UTF-16LE 中文, a BOM
});

test("a prefix cut inside a character is judged by what it holds", () => {
  const text = utf8("// 注释\n"); // 注 E6 B3 A8, 释 E9 87 8A
  const cut = text.subarray(0, 8); // "// 注" and two bytes of 释
  assert.equal(classify(cut, true), "utf-8");
  assert.notEqual(classify(cut, false), "utf-8"); // a whole file ending so is not UTF-8
  const gbkCut = GBK_COMMENT.subarray(0, 10); // the lead byte of 释 alone at the end
  assert.equal(classify(gbkCut, true), "gbk");
});

test("the survey reads at most the files and bytes it may, and skips what it cannot read", async () => {
  const folder = mkdtempSync(join(tmpdir(), "cudaport-gbk-"));
  const files: string[] = [];
  for (let i = 0; i < 6; i++) {
    const file = join(folder, `k${i}.cu`);
    // every other file GBK, the rest UTF-8 with Chinese
    writeFileSync(file, i % 2 ? GBK_COMMENT : utf8("// 中文注释\n"));
    files.push(file);
  }
  const all = await survey([...files, join(folder, "missing.cu")]);
  assert.deepEqual(all.gbk, [files[1], files[3], files[5]]);
  assert.equal(all.utf8, 3);
  assert.equal(all.checked, 6);

  const reads: number[] = [];
  const counting: typeof readPrefix = async (path, limit) => {
    reads.push(limit);
    return readPrefix(path, limit);
  };
  const few = await survey(files, { files: 2, bytesPerFile: 1024, totalBytes: 1 << 20 }, counting);
  assert.equal(few.checked, 2);
  assert.equal(reads.length, 2);

  // A large GBK file: only its first bytes are read, and its Chinese near the top is enough.
  const big = join(folder, "big.cu");
  writeFileSync(big, join2(GBK_COMMENT, utf8("x".repeat(200_000))));
  const bigUtf8 = join(folder, "big.py");
  writeFileSync(bigUtf8, utf8(`# 中文\n${"y".repeat(200_000)}`));
  reads.length = 0;
  const bounded = await survey([big, bigUtf8, ...files], { files: 10, bytesPerFile: 4096, totalBytes: 6000 }, counting);
  // the total budget runs out on the second file: the small files after it are not read
  assert.deepEqual(reads, [4096, 6000 - 4096]);
  assert.deepEqual([bounded.gbk, bounded.utf8, bounded.checked], [[big], 1, 2]);
  assert.equal(readFileSync(big).length > 4096, true);
  const prefix = await readPrefix(big, 4096);
  assert.equal(prefix.bytes.length, 4096);
  assert.equal(prefix.truncated, true);
  assert.equal((await readPrefix(files[0], 4096)).truncated, false);
});

test("the files checked are the text kinds of rules/files.toml, sources first", () => {
  // tests run from out/test/unit; rules/ is at the repository root
  const toml = readFileSync(join(__dirname, "..", "..", "..", "..", "rules", "files.toml"), "utf8");
  const patterns = new Set([...SOURCE_PATTERNS, ...INVENTORY_PATTERNS].map((p) => p.toLowerCase()));
  const missing: string[] = [];
  for (const section of toml.split(/^\[kind\./m).slice(1)) {
    if (/^binary\s*=\s*true/m.test(section)) continue;
    for (const key of ["suffixes", "names", "globs"]) {
      const list = new RegExp(`^${key}\\s*=\\s*\\[([^\\]]*)\\]`, "m").exec(section)?.[1] ?? "";
      for (const [, value] of list.matchAll(/"([^"]+)"/g)) {
        const pattern = key === "suffixes" ? `*${value}` : value;
        if (!patterns.has(pattern.toLowerCase())) missing.push(pattern);
      }
    }
  }
  assert.deepEqual(missing, [], "file kinds of rules/files.toml the GBK check does not look at");
  assert.match(globOf(SOURCE_PATTERNS), /^\*\*\/\{\*\.cu,\*\.cuh,/);
  assert.deepEqual(sourcesFirst(["/w/Dockerfile", "/w/b.py", "/w/a.cu", "/w/CMakeLists.txt"]), [
    "/w/a.cu",
    "/w/b.py",
    "/w/CMakeLists.txt",
    "/w/Dockerfile",
  ]);
});
