/**
 * @fileoverview Shell quoting of a command line, shared by the CLI (banners) and the library
 * (`lowerModule`'s `command` option).
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
