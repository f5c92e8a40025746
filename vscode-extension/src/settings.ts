// VS Code settings (the `cudaport.*` section) -> the options the server reads from initializationOptions and
// workspace/configuration. Free of the vscode module so it can be unit-tested.
import { expandPath } from "./interpreter";
import { t } from "./l10n";

// Targets come from the rule data (the server's `cudaport.server.targets` command): none is listed here. An empty
// `cudaport.target` is sent as "" (not left out, which would keep the value an earlier message gave), and the server
// then lets the project's cudaport.toml / pyproject.toml decide, as `cudaport check` does without --target.
const TARGET = /^[A-Za-z][\w.@-]*$/;
const SEVERITIES = new Set(["error", "warning", "information", "hint"]);
const CODE = /^CP\d{0,4}$/;
// A language tag (zh-CN, en, zh-cn, en_US): the server maps it to a language it speaks, else English.
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$/;

// Keys the server reads (camelCase, as editors write them). A list left empty in the settings is left out, so
// that the project's cudaport.toml / pyproject.toml keeps its value: an empty `select` would enable no rule at all.
export interface ServerOptions {
  target: string;
  select?: string[];
  /** Rule codes or prefixes added to the selection of the project's configuration (its `extend-select`). */
  extendSelect?: string[];
  ignore?: string[];
  severity?: Record<string, string>;
  extendExclude?: string[];
  run: "onType" | "onSave";
  showPortable: boolean;
  logLevel: "error" | "warning" | "info" | "debug";
  /** The language of the server's messages: the cudaport.lang setting, else VS Code's display language. */
  lang: string;
  /** The configuration file instead of the nearest cudaport.toml / pyproject.toml; "" (sent, to clear an earlier
   * value): the nearest. */
  config: string;
  /** Also write the server's log to this file; "": no file. */
  logFile: string;
  /** source.fixAll.cudaport (fix-all, and on save through editor.codeActionsOnSave). */
  fixAll: boolean;
  /** The quick fixes that rewrite a finding. */
  fixActions: boolean;
  /** The quick fixes that add a `cudaport: ignore[...]` comment. */
  ignoreCommentActions: boolean;
}

/** Where `${workspaceFolder}` and `~` in path settings lead. */
export interface PathContext {
  workspaceFolder?: string;
  home?: string;
}

/** A `get(key, default)` view of configuration, as vscode.WorkspaceConfiguration offers. */
export interface ConfigurationView {
  get<T>(key: string, defaultValue: T): T;
}

export interface Mapped {
  options: ServerOptions;
  /** Settings that were ignored, in words for the user. */
  problems: string[];
}

/**
 * `displayLanguage` is VS Code's (vscode.env.language, e.g. "zh-cn"): the server speaks it unless cudaport.lang
 * names another language.
 */
export function toServerOptions(config: ConfigurationView, displayLanguage = "", paths: PathContext = {}): Mapped {
  const problems: string[] = [];
  const flag = (key: string): boolean => {
    const raw = config.get<unknown>(key, true);
    if (typeof raw !== "boolean") {
      problems.push(t("cudaport.{key}: expected true or false, not {value}", { key, value: JSON.stringify(raw) }));
      return true;
    }
    return raw;
  };
  const path = (key: string): string => {
    const raw = config.get<unknown>(key, "");
    if (typeof raw !== "string") {
      problems.push(t("cudaport.{key}: expected a path, not {value}", { key, value: JSON.stringify(raw) }));
      return "";
    }
    return expandPath(raw, paths.workspaceFolder, paths.home);
  };
  const targetValue = String(config.get<string>("target", "") ?? "").trim();
  let target: string | undefined;
  if (TARGET.test(targetValue)) {
    target = targetValue; // the server checks it against the rule data and reports an unknown one
  } else if (targetValue) {
    problems.push(
      t('cudaport.target: "{value}" is not a target name; the project\'s configuration decides', { value: targetValue }),
    );
  }
  const codes = (key: string): string[] => {
    const raw = config.get<unknown>(key, []);
    if (!Array.isArray(raw)) {
      problems.push(t("cudaport.{key}: expected a list of rule codes", { key }));
      return [];
    }
    const out: string[] = [];
    for (const item of raw) {
      const code = String(item).trim().toUpperCase();
      if (CODE.test(code)) {
        out.push(code);
      } else if (code) {
        problems.push(
          t('cudaport.{key}: "{value}" is not a rule code or prefix (like CP1001 or CP20)', { key, value: String(item) }),
        );
      }
    }
    return out;
  };
  const severity: Record<string, string> = {};
  const rawSeverity = config.get<unknown>("severity", {});
  if (rawSeverity && typeof rawSeverity === "object" && !Array.isArray(rawSeverity)) {
    for (const [code, level] of Object.entries(rawSeverity as Record<string, unknown>)) {
      const normalized = String(level).toLowerCase();
      if (CODE.test(code.toUpperCase()) && SEVERITIES.has(normalized)) {
        severity[code.toUpperCase()] = normalized;
      } else {
        problems.push(t("cudaport.severity: ignoring {code} = {level}", { code, level: String(level) }));
      }
    }
  }
  const excludes = config.get<unknown>("exclude", []);
  const extendExclude = Array.isArray(excludes) ? excludes.map(String).filter((e) => e.trim() !== "") : [];
  const run = config.get<string>("run", "onType") === "onSave" ? "onSave" : "onType";
  const levels = ["error", "warning", "info", "debug"] as const;
  const levelValue = config.get<string>("logLevel", "info");
  const logLevel = (levels as readonly string[]).includes(levelValue) ? (levelValue as ServerOptions["logLevel"]) : "info";
  const rawPortable = config.get<unknown>("showPortable", true);
  const showPortable = typeof rawPortable === "boolean" ? rawPortable : true;
  if (typeof rawPortable !== "boolean") {
    problems.push(t("cudaport.showPortable: expected true or false, not {value}", { value: JSON.stringify(rawPortable) }));
  }
  const langValue = String(config.get<unknown>("lang", "") ?? "").trim();
  let lang = displayLanguage;
  if (LANGUAGE_TAG.test(langValue)) {
    lang = langValue;
  } else if (langValue) {
    problems.push(t('cudaport.lang: "{value}" is not a language (zh-CN, en); VS Code\'s display language decides', { value: langValue }));
  }
  const options: ServerOptions = {
    target: target ?? "",
    run,
    showPortable,
    logLevel,
    lang,
    config: path("configuration"),
    logFile: path("logFile"),
    fixAll: flag("fixAll"),
    fixActions: flag("codeAction.fix.enable"),
    ignoreCommentActions: flag("codeAction.ignoreComment.enable"),
  };
  const select = codes("select");
  const extendSelect = codes("extendSelect");
  if (extendSelect.length) options.extendSelect = extendSelect;
  const ignore = codes("ignore");
  if (select.length) options.select = select;
  if (ignore.length) options.ignore = ignore;
  if (Object.keys(severity).length) options.severity = severity;
  if (extendExclude.length) options.extendExclude = extendExclude;
  return { options, problems };
}
