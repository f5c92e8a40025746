// Every sentence the extension shows goes through t(): the English text is the key of the l10n bundle
// (l10n/bundle.l10n.<language>.json), as vscode.l10n.t does it. Kept free of the vscode module so the modules that
// build messages (status, settings, interpreter) stay unit-testable: extension.ts hands vscode.l10n.t in at
// activation, and tests hand in a bundle of their own.
//
// Placeholders are named, `{count}`, and filled from an object; t() is only ever called with a string literal, so
// that the unit test finds every message in the sources and checks the bundles against them.

export type Arguments = Record<string, string | number | boolean>;
export type Translator = (message: string, args: Arguments) => string;

/** Fills `{name}` placeholders; a placeholder without a value stays as written. */
export function format(message: string, args: Arguments = {}): string {
  return message.replace(/\{(\w+)\}/g, (whole, name: string) => (name in args ? String(args[name]) : whole));
}

let translator: Translator = format;

/** The message in the display language (English until a translator is set). */
export function t(message: string, args: Arguments = {}): string {
  return translator(message, args);
}

export function setTranslator(next: Translator | undefined): void {
  translator = next ?? format;
}

/** A translator from a bundle's contents (English text -> translation), falling back to the English text. */
export function bundleTranslator(bundle: Record<string, string | { message: string }>): Translator {
  return (message, args) => {
    const entry = bundle[message];
    const text = typeof entry === "string" ? entry : (entry?.message ?? message);
    return format(text, args);
  };
}
