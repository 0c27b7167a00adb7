/**
 * @fileoverview Shell quoting of a command line, shared by the CLI (banners) and the library
 * (`lowerModule`'s `command` option); and `show`, a value as an error message quotes it
 * (src/args.ts, targets/amdgpu/assign.ts).
 */

/** Characters that act on a terminal or an editor: C0, DEL, C1, line/paragraph separators, bidi controls. */
const CONTROL = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * Quotes argv words for a POSIX shell, so that pasting the line runs the same command: a word
 * of safe characters as it is; one with a control character (ESC, LF, tab, …) in `$'…'`
 * quotes with the character escaped (`$'a\x1bb'`, `$'a\nb'` is written `$'a\x0ab'`), so the
 * line stays one line and nothing reaches a terminal raw; anything else in single quotes (a
 * `'` inside becomes `'\''`).
 */
export function shellQuote(argv: readonly string[]): string {
  return argv
    .map((a) => {
      if (a !== "" && /^[\w@%+=:,./-]+$/.test(a)) return a;
      if (!CONTROL.test(a)) return `'${a.replace(/'/g, `'\\''`)}'`;
      const body = a.replace(new RegExp(`[\\\\']|${CONTROL.source}`, "g"), (c) => {
        if (c === "\\" || c === "'") return `\\${c}`;
        const n = c.charCodeAt(0);
        return n < 0x100 ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u${n.toString(16).padStart(4, "0")}`;
      });
      return `$'${body}'`;
    })
    .join(" ");
}

/** A value as a message shows it: `'nope'`, `42`, `null`, `{"kind":"js"}`, `a function`. */
export function show(x: unknown): string {
  if (x === null) return "null";
  if (x === undefined) return "undefined";
  if (typeof x === "string") return `'${x.length > 80 ? x.slice(0, 77) + "…" : x}'`;
  if (typeof x === "bigint") return `${x}n`;
  if (typeof x === "function") return "a function";
  if (typeof x === "symbol") return "a symbol";
  if (typeof x !== "object") return String(x);
  if (x instanceof Map) return "a Map";
  if (x instanceof Set) return "a Set";
  if (x instanceof Uint8Array) return "a Uint8Array";
  try {
    const s = JSON.stringify(x, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v));
    if (s === undefined) return "an object";
    return s.length > 120 ? s.slice(0, 117) + "…" : s;
  } catch {
    return "an object";
  }
}
