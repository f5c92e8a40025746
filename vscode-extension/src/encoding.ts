// Which files of a workspace are GBK (GB18030) rather than UTF-8: VS Code opens every file as UTF-8 unless
// files.encoding says otherwise, and a GBK file then shows its Chinese comments and strings as mojibake. The check
// is cheap by design: a bounded number of files, a bounded prefix of each. Free of the vscode module for unit tests.
import { promises as fs } from "fs";

export type Encoding = "ascii" | "utf-8" | "gbk" | "other";

/** How much of a workspace the check reads at most. */
export interface Limits {
  /** Files read at most (the rest are not looked at). */
  files: number;
  /** Bytes read from the start of each file. */
  bytesPerFile: number;
  /** Bytes read in all. */
  totalBytes: number;
}

export const DEFAULT_LIMITS: Limits = { files: 300, bytesPerFile: 32 * 1024, totalBytes: 4 * 1024 * 1024 };

// Han ideographs and CJK punctuation: text a GBK file of Chinese code has in its comments and strings. Bytes from
// another single-byte encoding (Latin-1's "é" pairs) can happen to decode as GBK too, but rarely as Chinese text.
const CHINESE = /[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]/u;

/**
 * The encoding of a file's bytes: `ascii` (nothing to tell), `utf-8`, `gbk` (not valid UTF-8, valid GB18030, and
 * Chinese text when read so), or `other` (Latin-1, binary...). `truncated` says the bytes are a prefix of the file,
 * whose last character may be cut.
 */
export function classify(bytes: Uint8Array, truncated = false): Encoding {
  if (bytes.every((byte) => byte < 0x80)) {
    return "ascii";
  }
  if (bytes.includes(0)) {
    return "other"; // a NUL byte: binary, or UTF-16, neither of which files.encoding=gbk would help
  }
  // With `stream`, a character cut at the end of a prefix is left pending instead of being an error.
  if (decodes("utf-8", bytes, truncated) !== undefined) {
    return "utf-8";
  }
  const text = decodes("gb18030", bytes, truncated);
  return text !== undefined && CHINESE.test(text) ? "gbk" : "other";
}

function decodes(encoding: string, bytes: Uint8Array, stream: boolean): string | undefined {
  try {
    return new TextDecoder(encoding, { fatal: true }).decode(bytes, { stream });
  } catch {
    return undefined;
  }
}

/** The first `limit` bytes of a file, and whether there was more. */
export async function readPrefix(path: string, limit: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const handle = await fs.open(path, "r");
  try {
    const buffer = new Uint8Array(limit + 1);
    const { bytesRead } = await handle.read(buffer, 0, limit + 1, 0);
    return { bytes: buffer.subarray(0, Math.min(bytesRead, limit)), truncated: bytesRead > limit };
  } finally {
    await handle.close();
  }
}

export interface Survey {
  /** Files that read as GBK, in the order they were given. */
  gbk: string[];
  /** Files with non-ASCII text that is valid UTF-8. */
  utf8: number;
  /** Files read. */
  checked: number;
}

/**
 * Reads the files (paths on disk) within the limits and sorts them by encoding. A file that cannot be read is left
 * out: the check only suggests a setting, it never stops anything.
 */
export async function survey(
  paths: Iterable<string>,
  limits: Limits = DEFAULT_LIMITS,
  read: typeof readPrefix = readPrefix,
): Promise<Survey> {
  const result: Survey = { gbk: [], utf8: 0, checked: 0 };
  let budget = limits.totalBytes;
  for (const path of paths) {
    if (result.checked >= limits.files || budget <= 0) {
      break;
    }
    let prefix: { bytes: Uint8Array; truncated: boolean };
    try {
      prefix = await read(path, Math.min(limits.bytesPerFile, budget));
    } catch {
      continue;
    }
    result.checked += 1;
    budget -= prefix.bytes.length;
    const encoding = classify(prefix.bytes, prefix.truncated);
    if (encoding === "gbk") {
      result.gbk.push(path);
    } else if (encoding === "utf-8") {
      result.utf8 += 1;
    }
  }
  return result;
}
