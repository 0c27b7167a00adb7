/**
 * @fileoverview Preprocessor conditions of a ported file (issue 34 item 3): for any place in
 * the file, whether a HIP device compile takes it (`live`), surely skips it (`dead`, naming the
 * guard) or may do either (`depends` on macros nothing settles); the same for the NVIDIA
 * device compile, so that the caller tells code both builds compile from HIP-only code; and
 * whether the place is a HIP path the file took on purpose (a branch conditioned on a HIP
 * macro), with the file's likely HIP build switches.
 *
 * What it evaluates (C11 §6.10.1, C++17 [cpp.cond]): the file's `#if #ifdef #ifndef #elif
 * #elifdef #elifndef #else #endif`, as src/port/scan.ts records them (`Scan.directives`), over
 * a model of what each compile defines, with the file's own `#define`/`#undef` followed in
 * order (a definition counts only where its group is taken; one in an unsettled group leaves
 * its macro unsettled after it), and `-D`/`-U` (`predefined`) applied before the file.
 * Expressions: integer literals (suffixes `u l ll z wb`, digit separators), character
 * literals, `defined X` / `defined(X)`, `+ - ! ~`, `* / % + - << >> < <= > >= == != & ^ | &&
 * || ?: ,`, parentheses, C++'s alternative tokens (`and or not bitand bitor xor compl
 * not_eq`) in C++ files, object-like macros expanded as text (recursively: a macro is not
 * expanded inside itself, C11 §6.10.3.4; at most 256 nested expansions and 100,000 tokens per
 * condition), 64-bit `intmax_t`/`uintmax_t` arithmetic with the usual conversions (§6.10.1p4).
 * Where C reads an unknown identifier as 0, this reads it as unsettled — the result `depends`
 * on it — unless the compile's model settles it; `__has_include(…)`, `__has_builtin(…)` and
 * the other `__has_*` tests, and calls of function-like macros, are unsettled too. `&&`,
 * `||` and `?:` short-circuit over unsettled operands (`defined(__HIP__) || X` is 1). A
 * condition that is no valid expression is unsettled (`(unreadable condition: …)`).
 *
 * The compile models (each name below is cited from the macros the compile prints, not
 * guessed; a name in neither list is unsettled):
 * - `hip`, `cuda` files: `clang-19 -x hip --cuda-device-only --offload-arch=gfx942 -nogpulib
 *   -E -dM -include hip/hip_runtime.h /dev/null` (HIP 5.2 headers);
 * - `cuda`, `cuda` files: the device pass of `nvcc -arch=sm_90 -c` (CUDA 13.0; `nvcc --dryrun`
 *   shows `gcc -D__CUDA_ARCH__=900 -D__CUDA_ARCH_LIST__=900 -D__CUDACC__ -D__NVCC__
 *   -D__CUDACC_VER_MAJOR__=13 … -include cuda_runtime.h`, whose `-E -dM` adds `CUDART_VERSION
 *   13000` and `__cplusplus 201703L`; `CUDA_VERSION 13000` is `cuda.h`'s);
 * - `hip`, `opencl` files: `clang-19 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa
 *   -mcpu=gfx942 -nogpulib -E -dM /dev/null` (it defines `__OPENCL_C_VERSION__`, not
 *   `__OPENCL_VERSION__`);
 * - `cuda`, `opencl` files: `clang-19 -x cl -cl-std=CL2.0 -target nvptx64-nvidia-nvcl
 *   -march=sm_90 -E -dM /dev/null`.
 * Names that depend on the processor, the ROCm or CUDA install or the host (`__gfx942__`,
 * `__AMDGCN_WAVEFRONT_SIZE`, `HIP_VERSION`, `__LP64__`, `_WIN64`, `__GNUC__`) are left out
 * on purpose: they stay unsettled. `--hip-macro NAME` (`hipMacros`) are defined as 1 in the
 * HIP compile and undefined in the NVIDIA one.
 *
 * The file's own macros: a `#define` in a branch a compile takes replaces the macro; one in
 * a branch it surely skips leaves an otherwise unsettled name settled as not defined (the
 * file defines it only elsewhere: `#if defined(__HIP_PLATFORM_AMD__)` / `#define
 * GGML_USE_HIP` makes `GGML_USE_HIP` undefined for CUDA); one in an unsettled branch leaves the
 * macro unsettled, on the branch's names, but surely defined when it was on entering the
 * group (or the branch is `#ifndef X` defining X). The first conditional of a file that is
 * `#ifndef X` (or `#if !defined(X)`) directly followed by `#define X`, with X otherwise
 * unsettled, is read as an include guard on its first inclusion (taken). Groups the scanner
 * drops (`#if 0`) are evaluated like any other (dead); their `#define`s settle nothing.
 */
import type { Loc } from "../ir/ir.js";
import type { Liveness, PortLanguage } from "./rewrite.js";
import type { Directive, Scan, Token } from "./scan.js";
import { scanSource } from "./scan.js";

/** The directive a result names: its location (of the `#`) and its text (`#if __CUDA_ARCH__ >= 700`, whitespace runs as one space, comments left out). */
export interface DirectiveRef {
  loc: Loc;
  text: string;
}

/** Options of `evaluateConditions`: those of `PortOptions` (src/port/rewrite.ts) the conditions read. */
export interface ConditionOptions {
  /** The file's language: C++ (CUDA/HIP) or OpenCL C; picks the compile models (see the file comment). */
  language: PortLanguage;
  /** `--hip-macro NAME`: macros a HIP build defines (as 1; undefined in the NVIDIA build); a branch conditioned on one is a HIP path. */
  hipMacros?: readonly string[];
  /** `-D NAME[=V]` / `-U NAME` in order, applied before the file to both compiles (after the model and `hipMacros`), as a compiler takes them. */
  predefined?: readonly ({ define: string; value: string } | { undef: string })[];
}

/** The answers of `evaluateConditions` about one file. Offsets are into the original text (`Scan.source.original`). */
export interface Conditions {
  /**
   * Whether a HIP device compile (see the file comment's models) takes the code at `offset`:
   * `dead` names the outermost enclosing branch surely not taken (for an `#else`/`#elif` made
   * dead by an earlier branch surely taken, that branch's directive); `depends` names every
   * unsettled macro of the enclosing branches (in file order; the first 32) and the outermost
   * unsettled directive. Never throws; an offset outside every group is `live`.
   */
  hip(offset: number): Liveness;
  /** The same for the NVIDIA device compile (`nvcc -arch=sm_90`, or OpenCL for `nvptx64-nvidia-nvcl`). */
  cuda(offset: number): Liveness;
  /**
   * The innermost enclosing branch that is a HIP path on purpose, or null: a branch a HIP
   * compile does not surely skip whose condition refers positively (not under `!`, not by
   * `#ifndef`) to a HIP macro, or an `#elif`/`#else` of a group whose earlier condition
   * referred negatively to one (`#ifndef __HIP__ … #else`: the `#else` is named). HIP macros:
   * `__HIP_PLATFORM_AMD__ __HIP_PLATFORM_HCC__ __HIPCC__ __HIP__ __HIP_DEVICE_COMPILE__
   * __AMDGCN__`, `hipMacros`, and what the file `#define`s inside a HIP path that the NVIDIA
   * compile surely skips (transitively, in file order: `#if defined(__HIP_PLATFORM_AMD__)` /
   * `#define GGML_USE_HIP`; not ggml's `FP16_AVAILABLE`, defined under `defined(GGML_USE_HIP)
   * || __CUDA_ARCH__ >= 600`, which CUDA takes too).
   */
  hipPath(offset: number): DirectiveRef | null;
  /** The file has at least one HIP path (with these `hipMacros`). */
  hasHipPath: boolean;
  /**
   * Likely HIP build switches, in order of first use, each once at its first use: a name
   * holding `HIP`, `ROCM` or `AMD` (case-sensitive) in a conditional directive the scanner
   * keeps, that the HIP model neither defines nor settles, that is not in `hipMacros` nor
   * `predefined`, that the file does not `#define`, and that is not reserved to the
   * implementation (C11 §7.1.3: `__X`, `_X` — those are the compiler's and HIP headers'
   * own, `__HIP_ARCH_HAS_WARP_SHUFFLE__`).
   */
  hipSwitches: { name: string; loc: Loc }[];
}

/** A token of an expression: scan tokens with multi-character operators joined (`<=`, `&&`) and C++ alternative tokens read as their operators. */
interface Tok {
  kind: Token["kind"];
  text: string;
}

/** What a macro is at a point of the file, in one compile. */
type MacroState =
  | { k: "def"; params: string[] | null; body: readonly Tok[] }
  | { k: "undef" }
  /** Unsettled: its value (and, unless `defined` is set, whether it is defined) depends on `names`. */
  | { k: "unknown"; names: string[]; defined: boolean };

/**
 * A compile's model: what it surely defines (name → replacement text, or null where it is
 * defined with a value that depends on the processor or the install: `HIP_VERSION`,
 * `__AMDGCN_WAVEFRONT_SIZE`) and what it surely does not define.
 */
export interface CompileModel {
  defined: ReadonlyMap<string, string | null>;
  undefined: ReadonlySet<string>;
}

/** The HIP macros of the issue (item 3): a branch conditioned positively on one of them is a HIP path. */
export const HIP_PATH_MACROS: readonly string[] = ["__HIP_PLATFORM_AMD__", "__HIP_PLATFORM_HCC__", "__HIPCC__", "__HIP__", "__HIP_DEVICE_COMPILE__", "__AMDGCN__"];

const CUDA_NAMES = [
  "__CUDA_ARCH__",
  "__CUDA_ARCH_LIST__",
  "__CUDACC__",
  "__NVCC__",
  "__CUDA__",
  "__NVPTX__",
  "CUDA_VERSION",
  "CUDART_VERSION",
  "__CUDACC_VER_MAJOR__",
  "__CUDACC_VER_MINOR__",
  "__CUDACC_VER_BUILD__",
  "__CUDA_API_VER_MAJOR__",
  "__CUDA_API_VER_MINOR__",
  "__CUDACC_RTC__",
];
const HIP_NAMES = [
  "__HIP__",
  "__HIPCC__",
  "__HIP_PLATFORM_AMD__",
  "__HIP_PLATFORM_HCC__",
  "__HIP_PLATFORM_NVIDIA__",
  "__HIP_PLATFORM_NVCC__",
  "__HIP_DEVICE_COMPILE__",
  "__HIP_CLANG_ONLY__",
  "__AMDGCN__",
  "__AMDGPU__",
  "__AMD__",
];
/** Defined by `hip_runtime.h` (`hip_version.h`) and by clang for amdgcn, with values of the install and the processor (gfx9: 64, gfx10+: 32 lanes). */
const HIP_INSTALL_NAMES = ["HIP_VERSION", "HIP_VERSION_MAJOR", "HIP_VERSION_MINOR", "HIP_VERSION_PATCH"];
const WAVEFRONT_NAMES = ["__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__"];
const OPENCL_NAMES = ["__OPENCL_C_VERSION__", "__OPENCL_VERSION__", "__OPENCL_CPP_VERSION__", "CL_VERSION_1_0", "CL_VERSION_1_1", "CL_VERSION_1_2", "CL_VERSION_2_0"];

/** Builds a model: `defined` as given, `undefined` the rest of `names`. */
function model(defined: [string, string | null][], ...names: string[][]): CompileModel {
  const d = new Map(defined);
  return {
    defined: d,
    undefined: new Set(names.flat().filter((n) => !d.has(n))),
  };
}

/**
 * The compile models (see the file comment for the commands whose `-E -dM` they are cut
 * from): `hip` — the HIP (AMD) device compile of the file's language; `cuda` — the NVIDIA
 * one. Values are the replacement texts as printed (`__HIP_PLATFORM_AMD__` is defined empty).
 */
export function compileModel(compile: "hip" | "cuda", language: PortLanguage): CompileModel {
  const key = `${compile}/${language}`;
  const cached = MODELS.get(key);
  if (cached) return cached;
  let m: CompileModel;
  if (compile === "hip" && language === "cuda")
    m = model(
      [
        ["__HIP__", "1"],
        ["__HIPCC__", "1"],
        ["__HIP_PLATFORM_AMD__", ""],
        ["__HIP_PLATFORM_HCC__", ""],
        ["__HIP_DEVICE_COMPILE__", "1"],
        ["__HIP_CLANG_ONLY__", "1"],
        ["__AMDGCN__", "1"],
        ["__AMDGPU__", "1"],
        ["__AMD__", "1"],
        ["__clang__", "1"],
        ["__cplusplus", "201703L"],
        ...[...HIP_INSTALL_NAMES, ...WAVEFRONT_NAMES].map((n): [string, null] => [n, null]),
      ],
      HIP_NAMES,
      CUDA_NAMES,
      OPENCL_NAMES,
    );
  else if (compile === "cuda" && language === "cuda")
    m = model(
      [
        ["__CUDACC__", "1"],
        ["__NVCC__", "1"],
        ["__CUDA_ARCH__", "900"],
        ["__CUDA_ARCH_LIST__", "900"],
        ["CUDA_VERSION", "13000"],
        ["CUDART_VERSION", "13000"],
        ["__CUDACC_VER_MAJOR__", "13"],
        ["__CUDACC_VER_MINOR__", "0"],
        ["__CUDACC_VER_BUILD__", "88"],
        ["__CUDA_API_VER_MAJOR__", "13"],
        ["__CUDA_API_VER_MINOR__", "0"],
        ["__cplusplus", "201703L"],
      ],
      HIP_NAMES,
      HIP_INSTALL_NAMES,
      WAVEFRONT_NAMES,
      CUDA_NAMES,
      OPENCL_NAMES,
    );
  else if (compile === "hip")
    m = model(
      [
        ["__OPENCL_C_VERSION__", "200"],
        ["CL_VERSION_1_0", "100"],
        ["CL_VERSION_1_1", "110"],
        ["CL_VERSION_1_2", "120"],
        ["CL_VERSION_2_0", "200"],
        ["__AMDGCN__", "1"],
        ["__AMDGPU__", "1"],
        ["__AMD__", "1"],
        ["__clang__", "1"],
        ["__ENDIAN_LITTLE__", "1"],
        ...WAVEFRONT_NAMES.map((n): [string, null] => [n, null]),
      ],
      HIP_NAMES,
      HIP_INSTALL_NAMES,
      CUDA_NAMES,
      OPENCL_NAMES,
      ["__cplusplus"],
    );
  else
    m = model(
      [
        ["__OPENCL_C_VERSION__", "200"],
        ["CL_VERSION_1_0", "100"],
        ["CL_VERSION_1_1", "110"],
        ["CL_VERSION_1_2", "120"],
        ["CL_VERSION_2_0", "200"],
        ["__NVPTX__", "1"],
        ["__CUDA_ARCH__", "900"],
        ["__clang__", "1"],
      ],
      HIP_NAMES,
      HIP_INSTALL_NAMES,
      WAVEFRONT_NAMES,
      CUDA_NAMES,
      OPENCL_NAMES,
      ["__cplusplus"],
    );
  MODELS.set(key, m);
  return m;
}
const MODELS = new Map<string, CompileModel>();

/** Two-character operators of `#if` expressions (the scanner gives one-character punctuation). */
const TWO_CHAR = new Set(["<=", ">=", "==", "!=", "&&", "||", "<<", ">>", "##"]);
/** C++'s alternative tokens ([lex.digraph]) that may stand in a condition. */
const ALTERNATIVE: Record<string, string> = {
  and: "&&",
  or: "||",
  not: "!",
  not_eq: "!=",
  bitand: "&",
  bitor: "|",
  xor: "^",
  compl: "~",
};
/** Clang's feature tests: a call of one is unsettled (what the install has). */
const HAS_TESTS = new Set([
  "__has_include",
  "__has_include_next",
  "__has_builtin",
  "__has_attribute",
  "__has_cpp_attribute",
  "__has_c_attribute",
  "__has_declspec_attribute",
  "__has_feature",
  "__has_extension",
  "__has_warning",
  "__has_embed",
  "__is_identifier",
  "__building_module",
  "__is_target_arch",
  "__is_target_os",
]);

/** Joins the scanner's tokens into expression tokens (adjacent `<` `=` → `<=`; `and` → `&&` in C++). */
function joinTokens(toks: readonly Token[], cxx: boolean): Tok[] {
  const out: Tok[] = [];
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    const n = toks[i + 1];
    if (t.kind === "punct" && n?.kind === "punct" && n.start === t.end && TWO_CHAR.has(t.text + n.text)) {
      out.push({ kind: "punct", text: t.text + n.text });
      i++;
    } else if (cxx && t.kind === "ident" && Object.hasOwn(ALTERNATIVE, t.text)) out.push({ kind: "punct", text: ALTERNATIVE[t.text]! });
    else out.push({ kind: t.kind, text: t.text });
  }
  return out;
}

/** Expression tokens of a replacement text (a model's value, a `-D` value); cached, as the models' are read by every file. */
function textTokens(text: string, cxx: boolean): readonly Tok[] {
  const key = `${cxx ? "c" : "o"}${text}`;
  let toks = TEXT_TOKENS.get(key);
  if (!toks) {
    toks = joinTokens(scanSource(text.replace(/[\r\n]+/g, " "), "<value>").tokens, cxx);
    if (TEXT_TOKENS.size < 4096) TEXT_TOKENS.set(key, toks);
  }
  return toks;
}
const TEXT_TOKENS = new Map<string, readonly Tok[]>();

/** A condition that is no valid expression (thrown inside the evaluator only). */
class Unreadable extends Error {}

type Num = { v: bigint; u: boolean };
/** A value: a number, or unsettled (`dep`: the names it depends on). */
type Val = Num | { dep: string[] };
const isNum = (v: Val): v is Num => "v" in v;
const num = (v: bigint, u = false): Num => ({
  v: u ? BigInt.asUintN(64, v) : BigInt.asIntN(64, v),
  u,
});
const bool = (b: boolean): Num => ({ v: b ? 1n : 0n, u: false });
/** At most this many names are kept for one place (a deep nest of unsettled `#if`s stays linear). */
const MAX_NAMES = 32;
/** The names of `lists` in order, each once, the first `MAX_NAMES` of them. */
const union = (...lists: (readonly string[] | undefined)[]): string[] => {
  const out: string[] = [];
  for (const l of lists) if (l) for (const n of l) if (!out.includes(n) && out.push(n) >= MAX_NAMES) return out;
  return out;
};
const depsOf = (...vs: Val[]): string[] => union(...vs.map((v) => (isNum(v) ? undefined : v.dep)));
/** Truth of a value: true, false, or the names it depends on. */
const truth = (v: Val): boolean | string[] => (isNum(v) ? v.v !== 0n : v.dep);

/** A reference of a condition to a macro name, positive unless under an odd number of `!`. */
interface Ref {
  name: string;
  positive: boolean;
}

/** Limits of one condition's evaluation: nested expansions, tokens read. */
const MAX_DEPTH = 256;
const MAX_STEPS = 100_000;

/**
 * The token stream of one condition, with object-like macros spliced in as they are read.
 * Each spliced replacement carries its hide set (C11 §6.10.3.4: the names being replaced
 * where it came from, the macro's own included), so that a name read from it is not expanded again.
 */
class Stream {
  private readonly frames: {
    toks: readonly Tok[];
    i: number;
    hide: ReadonlySet<string>;
  }[];
  private steps = 0;
  /** The hide set of the token `next` returned last. */
  private lastHide: ReadonlySet<string> = new Set();
  constructor(toks: readonly Tok[]) {
    this.frames = [{ toks, i: 0, hide: new Set() }];
  }
  peek(): Tok | undefined {
    let top = this.frames[this.frames.length - 1]!;
    while (this.frames.length > 1 && top.i >= top.toks.length) {
      this.frames.pop();
      top = this.frames[this.frames.length - 1]!;
    }
    return top.toks[top.i];
  }
  next(): Tok | undefined {
    const t = this.peek();
    if (t) {
      const top = this.frames[this.frames.length - 1]!;
      top.i++;
      this.lastHide = top.hide;
      if (++this.steps > MAX_STEPS) throw new Unreadable("macro expansion too long");
    }
    return t;
  }
  /** Whether the name `next` returned last came from the replacement of a macro of that name (not expanded again). */
  hidden(name: string): boolean {
    return this.lastHide.has(name);
  }
  /** Splices the replacement of macro `name`, the token `next` returned last. */
  push(name: string, toks: readonly Tok[]): void {
    if (this.frames.length > MAX_DEPTH) throw new Unreadable("macro expansion nested too deep");
    this.frames.push({ toks, i: 0, hide: new Set([...this.lastHide, name]) });
  }
}

/** The integer value of a preprocessing number, or why it is none. */
function parseNumber(text: string): Num {
  const m = /^(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)(?:[uU](?:ll|LL|l|L|z|Z|wb|WB)?|(?:ll|LL|l|L|z|Z|wb|WB)[uU]?)?$/.exec(text.replace(/'/g, ""));
  if (!m) throw new Unreadable(`'${text}' is not an integer`);
  const digits = m[1]!;
  const v = BigInt(/^0[0-7]+$/.test(digits) ? `0o${digits.slice(1)}` : digits);
  if (v >= 1n << 64n) throw new Unreadable(`'${text}' is too large`);
  return num(v, /[uU]/.test(text.slice(digits.length)) || v >= 1n << 63n);
}

/** The value of a character literal (`'a'`, `'\n'`, `u'x'`, `'ab'` as clang reads it: big-endian bytes in an int). */
function parseChar(text: string): Num {
  const q = text.indexOf("'");
  const prefix = text.slice(0, q);
  const body = text.slice(q + 1, text.endsWith("'") && text.length > q + 1 ? -1 : undefined);
  const codes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      codes.push(body.codePointAt(i)!);
      if (codes[codes.length - 1]! > 0xffff) i++;
      continue;
    }
    const e = body[++i] ?? "";
    const simple: Record<string, number> = {
      n: 10,
      t: 9,
      r: 13,
      a: 7,
      b: 8,
      f: 12,
      v: 11,
      "\\": 92,
      "'": 39,
      '"': 34,
      "?": 63,
      e: 27,
      "0": 0,
    };
    if (/[0-7]/.test(e)) {
      let j = i;
      while (j < body.length && j < i + 3 && /[0-7]/.test(body[j]!)) j++;
      codes.push(Number.parseInt(body.slice(i, j), 8));
      i = j - 1;
    } else if (e === "x" || e === "u" || e === "U") {
      let j = i + 1;
      while (j < body.length && /[0-9a-fA-F]/.test(body[j]!)) j++;
      codes.push(Number.parseInt(body.slice(i + 1, j) || "0", 16));
      i = j - 1;
    } else if (e in simple) codes.push(simple[e]!);
    else codes.push(e.codePointAt(0) ?? 0);
  }
  if (codes.length === 0) throw new Unreadable("an empty character literal");
  if (prefix !== "") return num(BigInt(codes[codes.length - 1]!), prefix === "U" || prefix === "u" || prefix === "u8");
  // A plain char is signed (x86-64, amdgcn); several chars make an int of their bytes.
  if (codes.length === 1) return num(BigInt(codes[0]! & 0xff) - (codes[0]! & 0x80 ? 256n : 0n));
  let v = 0n;
  for (const c of codes) v = (v << 8n) | BigInt(c & 0xff);
  return num(BigInt.asIntN(32, v));
}

/** Binary operators by precedence (C11 §6.5.5–§6.5.14). */
const PRECEDENCE: Record<string, number> = {
  "*": 10,
  "/": 10,
  "%": 10,
  "+": 9,
  "-": 9,
  "<<": 8,
  ">>": 8,
  "<": 7,
  "<=": 7,
  ">": 7,
  ">=": 7,
  "==": 6,
  "!=": 6,
  "&": 5,
  "^": 4,
  "|": 3,
  "&&": 2,
  "||": 1,
};

/** A macro table of one compile at one point of the file: the file's and `-D`'s over the model. */
class Table {
  readonly map = new Map<string, MacroState>();
  constructor(
    readonly model: CompileModel,
    readonly cxx: boolean,
  ) {}
  get(name: string): MacroState {
    const s = this.map.get(name);
    if (s) return s;
    if (this.model.undefined.has(name)) return { k: "undef" };
    const v = this.model.defined.get(name);
    if (v === null) return { k: "unknown", names: [name], defined: true };
    if (v !== undefined) {
      const st: MacroState = {
        k: "def",
        params: null,
        body: textTokens(v, this.cxx),
      };
      this.map.set(name, st);
      return st;
    }
    return { k: "unknown", names: [name], defined: false };
  }
  /** Whether the model or an earlier line settles `name` (defined or not). */
  settles(name: string): boolean {
    return this.get(name).k !== "unknown";
  }
}

/** Evaluates one condition over `table`; `refs`, when given, collects the macro names it refers to. */
function evaluate(toks: readonly Tok[], table: Table, refs: Ref[] | null): Val {
  const st = new Stream(toks);
  const cxx = table.cxx;
  const ref = (name: string, positive: boolean) => refs?.push({ name, positive });
  const expect = (text: string) => {
    const t = st.next();
    if (t?.text !== text) throw new Unreadable(`expected '${text}'${t ? `, found '${t.text}'` : " at the end"}`);
  };
  /** Skips a parenthesized argument list (the `(` is next); returns its text. */
  const skipArgs = (): string => {
    let depth = 0;
    let text = "";
    for (;;) {
      const t = st.next();
      if (!t) throw new Unreadable("unbalanced parentheses");
      text += t.text;
      if (t.text === "(") depth++;
      else if (t.text === ")" && --depth === 0) return text;
    }
  };
  const definedness = (name: string): Val => {
    if (HAS_TESTS.has(name) || name === "defined") return bool(true);
    const s = table.get(name);
    if (s.k === "def") return bool(true);
    if (s.k === "undef") return bool(false);
    return s.defined ? bool(true) : { dep: s.names };
  };
  const conditional = (ev: boolean, pos: boolean): Val => {
    const c = binary(1, ev, pos);
    if (st.peek()?.text !== "?") return c;
    st.next();
    const ct = truth(c);
    const a = comma(ev && ct !== false, pos);
    expect(":");
    const b = conditional(ev && ct !== true, pos);
    const u = (isNum(a) && a.u) || (isNum(b) && b.u);
    const as = (x: Val): Val => (isNum(x) ? num(x.v, u) : x);
    if (ct === true) return as(a);
    if (ct === false) return as(b);
    if (isNum(a) && isNum(b) && a.v === b.v) return as(a);
    return { dep: union(ct, depsOf(a, b)) };
  };
  const comma = (ev: boolean, pos: boolean): Val => {
    let v = conditional(ev, pos);
    while (st.peek()?.text === ",") {
      st.next();
      v = conditional(ev, pos);
    }
    return v;
  };
  const binary = (min: number, ev: boolean, pos: boolean): Val => {
    let lhs = unary(ev, pos);
    for (;;) {
      const op = st.peek();
      const p = op?.kind === "punct" ? PRECEDENCE[op.text] : undefined;
      if (p === undefined || p < min) return lhs;
      st.next();
      if (op!.text === "&&" || op!.text === "||") {
        const and = op!.text === "&&";
        const lt = truth(lhs);
        const rhs = binary(p + 1, ev && lt !== !and, pos);
        const rt = truth(rhs);
        if (lt === !and || rt === !and) lhs = bool(!and);
        else if (lt === and && rt === and) lhs = bool(and);
        else
          lhs = {
            dep: union(lt === and ? [] : (lt as string[]), rt === and ? [] : (rt as string[])),
          };
      } else {
        const rhs = binary(p + 1, ev, pos);
        lhs = ev ? arith(op!.text, lhs, rhs) : bool(false);
      }
    }
  };
  const unary = (ev: boolean, pos: boolean): Val => {
    const t = st.peek();
    if (t?.kind === "punct" && (t.text === "+" || t.text === "-" || t.text === "!" || t.text === "~")) {
      st.next();
      const v = unary(ev, t.text === "!" ? !pos : pos);
      if (!isNum(v)) return v;
      if (t.text === "+") return v;
      if (t.text === "-") return num(-v.v, v.u);
      if (t.text === "~") return num(~v.v, v.u);
      return bool(v.v === 0n);
    }
    return primary(ev, pos);
  };
  const primary = (ev: boolean, pos: boolean): Val => {
    const t = st.next();
    if (!t) throw new Unreadable("an operand is missing");
    if (t.kind === "number") return parseNumber(t.text);
    if (t.kind === "char") return parseChar(t.text);
    if (t.text === "(") {
      const v = comma(ev, pos);
      expect(")");
      return v;
    }
    if (t.kind !== "ident") throw new Unreadable(`'${t.text}' where an operand must come`);
    const name = t.text;
    if (name === "defined") {
      const paren = st.peek()?.text === "(";
      if (paren) st.next();
      const x = st.next();
      if (x?.kind !== "ident") throw new Unreadable("'defined' without a macro name");
      if (paren) expect(")");
      ref(x.text, pos);
      return definedness(x.text);
    }
    if (HAS_TESTS.has(name)) {
      if (st.peek()?.text !== "(") throw new Unreadable(`'${name}' without '('`);
      return { dep: [`${name}${skipArgs()}`] };
    }
    if (cxx && (name === "true" || name === "false")) return bool(name === "true");
    if (st.hidden(name)) return bool(false); // not expanded again: an identifier, 0
    ref(name, pos);
    const s = table.get(name);
    if (s.k === "undef") return bool(false);
    const call = st.peek()?.text === "(";
    if (s.k === "def" && s.params === null) {
      st.push(name, s.body);
      return unary(ev, pos);
    }
    if (s.k === "def") {
      if (!call) return bool(false); // a function-like macro's name alone is not expanded: 0
      skipArgs();
      return { dep: [name] };
    }
    if (call) skipArgs();
    return { dep: s.names };
  };
  const arith = (op: string, a: Val, b: Val): Val => {
    if (!isNum(a) || !isNum(b)) return { dep: depsOf(a, b) };
    if (op === "<<" || op === ">>") {
      // The type is the left operand's (§6.5.7p3); a count out of range is undefined, read as the hardware-free limit.
      const n = b.u || b.v >= 0n ? (b.v > 64n ? 64n : b.v) : -1n;
      if (n < 0n) throw new Unreadable("a negative shift count");
      return num(op === "<<" ? a.v << n : a.v >> n, a.u);
    }
    const u = a.u || b.u;
    const x = u ? BigInt.asUintN(64, a.v) : a.v;
    const y = u ? BigInt.asUintN(64, b.v) : b.v;
    switch (op) {
      case "*":
        return num(x * y, u);
      case "/":
      case "%":
        if (y === 0n) throw new Unreadable("division by zero");
        return num(op === "/" ? x / y : x % y, u);
      case "+":
        return num(x + y, u);
      case "-":
        return num(x - y, u);
      case "<":
        return bool(x < y);
      case "<=":
        return bool(x <= y);
      case ">":
        return bool(x > y);
      case ">=":
        return bool(x >= y);
      case "==":
        return bool(x === y);
      case "!=":
        return bool(x !== y);
      case "&":
        return num(x & y, u);
      case "^":
        return num(x ^ y, u);
      default:
        return num(x | y, u);
    }
  };
  const v = comma(true, true);
  const rest = st.next();
  if (rest) throw new Unreadable(`'${rest.text}' after the expression`);
  return v;
}

/** One model's view of a branch of a group: taken, surely not (why), or unsettled (on what, first named where). */
type Own = { s: "live" } | { s: "dead"; guard: DirectiveRef } | { s: "depends"; names: string[]; guard: DirectiveRef };

/** A branch of a group, with what encloses it (a persistent list: a snapshot is one pointer). */
interface Branch {
  parent: Branch | null;
  /** Whether each compile takes code here, this branch and every enclosing one together. */
  hip: Liveness;
  cuda: Liveness;
  /** The innermost HIP path here (this branch's own, or an enclosing one's). */
  path: DirectiveRef | null;
}

/** One compile's view of an open group: the branch surely taken so far, and the unsettled ones before. */
interface GroupModel {
  taken: DirectiveRef | null;
  pending: { names: string[]; guard: DirectiveRef } | null;
}

/** An open `#if` group. */
interface Group {
  outer: Branch | null;
  hip: GroupModel;
  cuda: GroupModel;
  /** An earlier condition of the group referred negatively to a HIP macro (its `#else` is a HIP path). */
  negHip: boolean;
  branch: Branch;
  /** Each compile's own view of the current branch. */
  own: { hip: Own; cuda: Own };
  /** Per compile, what each macro the group's unsettled branches (re)define was on entering the group. */
  entry: { hip: Map<string, MacroState>; cuda: Map<string, MacroState> };
  /** The directive that opened the current branch. */
  directive: Directive;
}

const LIVE: Liveness = { state: "live" };

/** Enclosing liveness `outer` and a branch's own view together: the outermost dead wins, then every unsettled name. */
function combine(outer: Liveness, own: Own): Liveness {
  if (outer.state === "dead") return outer;
  if (own.s === "dead") return { state: "dead", guard: own.guard };
  if (outer.state === "depends") return own.s === "depends" && outer.names.length < MAX_NAMES ? { state: "depends", names: union(outer.names, own.names), guard: outer.guard } : outer;
  return own.s === "depends" ? { state: "depends", names: own.names, guard: own.guard } : LIVE;
}

/** The name X when `d` is `#ifndef X`, `#if !defined(X)` or `#if !defined X`, else null. */
function notDefinedTest(d: Directive): string | null {
  const a = d.args.map((t) => t.text);
  if (d.kind === "ifndef" && d.args[0]?.kind === "ident") return a[0]!;
  if (d.kind !== "if" && d.kind !== "elif") return null;
  if (a.length === 3 && a[0] === "!" && a[1] === "defined" && d.args[2]!.kind === "ident") return a[2]!;
  if (a.length === 5 && a[0] === "!" && a[1] === "defined" && a[2] === "(" && a[4] === ")" && d.args[3]!.kind === "ident") return a[3]!;
  return null;
}

/** Names reserved to the implementation (C11 §7.1.3): not a project's build switch. */
const RESERVED = /^(__|_[A-Z])/;
const SWITCH_WORD = /HIP|ROCM|AMD/;

/**
 * Evaluates the conditional directives of `scan` (src/port/scan.ts `Scan.directives`) for
 * the HIP and the NVIDIA device compiles of `opts.language` (models and rules: the file
 * comment). Linear in the number of directives and their tokens (a condition's macro
 * expansion is bounded); the queries are binary searches over the directives. Never throws:
 * an unterminated `#if` runs to the end of the file, a stray `#endif`/`#else`/`#elif` is
 * ignored, a condition that is no valid expression is `depends` (`(unreadable condition:
 * why)`).
 */
export function evaluateConditions(scan: Scan, opts: ConditionOptions): Conditions {
  const { source } = scan;
  const cxx = opts.language === "cuda";
  const hipMacros = opts.hipMacros ?? [];
  const hipT = new Table(compileModel("hip", opts.language), cxx);
  const cudaT = new Table(compileModel("cuda", opts.language), cxx);
  for (const m of hipMacros) {
    hipT.map.set(m, {
      k: "def",
      params: null,
      body: [{ kind: "number", text: "1" }],
    });
    cudaT.map.set(m, { k: "undef" });
  }
  const predefinedNames = new Set<string>();
  for (const p of opts.predefined ?? []) {
    const name = "define" in p ? p.define : p.undef;
    predefinedNames.add(name);
    for (const t of [hipT, cudaT]) t.map.set(name, "define" in p ? { k: "def", params: null, body: textTokens(p.value, cxx) } : { k: "undef" });
  }
  const hipNames = new Set([...HIP_PATH_MACROS, ...hipMacros]);

  const textOf = (d: Directive): string => {
    const a = d.args;
    // The spliced text from the first token to the last, block comments out (no string can hold one in a condition).
    const cond = a.length
      ? source.text
          .slice(a[0]!.start, a[a.length - 1]!.end)
          .replace(/\/\*[\s\S]*?\*\//g, " ")
          .replace(/\s+/g, " ")
      : "";
    return `#${d.kind}${cond ? ` ${cond}` : ""}`;
  };
  const refOf = (d: Directive): DirectiveRef => ({
    loc: d.loc,
    text: textOf(d),
  });

  /** One condition's value in one compile: true, false or the names it depends on; refs collected for the HIP one. */
  const condition = (d: Directive, table: Table, refs: Ref[] | null): boolean | string[] => {
    const toks = joinTokens(d.args, cxx);
    try {
      if (d.kind === "ifdef" || d.kind === "ifndef" || d.kind === "elifdef" || d.kind === "elifndef") {
        const x = toks[0];
        if (x?.kind !== "ident") throw new Unreadable(`#${d.kind} without a macro name`);
        const positive = d.kind === "ifdef" || d.kind === "elifdef";
        refs?.push({ name: x.text, positive });
        const s = table.get(x.text);
        const def = s.k === "def" ? true : s.k === "undef" ? false : s.defined ? true : s.names;
        return typeof def === "boolean" ? def === positive : def;
      }
      return truth(evaluate(toks, table, refs));
    } catch (e) {
      if (e instanceof Unreadable) return [`(unreadable condition: ${e.message})`];
      if (e instanceof RangeError) return ["(unreadable condition: too deep)"];
      throw e;
    }
  };

  /** A branch's own view in one compile, from its condition's value (true for `#else`), updating the group's model. */
  const branchOwn = (g: GroupModel, here: DirectiveRef, value: boolean | string[]): Own => {
    let own: Own;
    if (g.taken) own = { s: "dead", guard: g.taken };
    else if (value === false) own = { s: "dead", guard: here };
    else if (value === true) own = g.pending ? { s: "depends", names: g.pending.names, guard: g.pending.guard } : { s: "live" };
    else
      own = {
        s: "depends",
        names: union(g.pending?.names, value),
        guard: g.pending?.guard ?? here,
      };
    if (!g.taken && value === true) g.taken = here;
    else if (!g.taken && Array.isArray(value))
      g.pending = {
        names: union(g.pending?.names, value),
        guard: g.pending?.guard ?? here,
      };
    return own;
  };

  const groups: Group[] = [];
  const segStart: number[] = [];
  const segBranch: (Branch | null)[] = [];
  let hasHipPath = false;
  let firstConditional = true;
  const current = (): Branch | null => groups[groups.length - 1]?.branch ?? null;

  /** Opens the branch `d` of group `g` (its models updated): what each compile makes of it, and whether it is a HIP path. */
  const openBranch = (g: Group, d: Directive, outer: Branch | null): { branch: Branch; own: Group["own"]; negative: boolean } => {
    const outerHip = outer?.hip ?? LIVE;
    const outerCuda = outer?.cuda ?? LIVE;
    const refs: Ref[] = [];
    const isElse = d.kind === "else";
    const hipValue = outerHip.state === "dead" ? false : isElse ? true : condition(d, hipT, refs);
    const cudaValue = outerCuda.state === "dead" ? false : isElse ? true : condition(d, cudaT, null);
    const here = refOf(d);
    const hipOwn: Own = outerHip.state === "dead" ? { s: "dead", guard: outerHip.guard } : branchOwn(g.hip, here, hipValue);
    const cudaOwn: Own = outerCuda.state === "dead" ? { s: "dead", guard: outerCuda.guard } : branchOwn(g.cuda, here, cudaValue);
    const isHip = (r: Ref) => hipNames.has(r.name);
    const onPurpose = hipOwn.s !== "dead" && (refs.some((r) => r.positive && isHip(r)) || g.negHip);
    if (onPurpose) hasHipPath = true;
    const branch: Branch = {
      parent: outer,
      hip: combine(outerHip, hipOwn),
      cuda: combine(outerCuda, cudaOwn),
      path: onPurpose ? here : (outer?.path ?? null),
    };
    return {
      branch,
      own: { hip: hipOwn, cuda: cudaOwn },
      negative: refs.some((r) => !r.positive && isHip(r)),
    };
  };

  const fileDefines = new Set<string>();
  const ds = scan.directives;
  for (let i = 0; i < ds.length; i++) {
    const d = ds[i]!;
    if (d.kind === "define" || d.kind === "undef") {
      const nameTok = d.args[0];
      if (nameTok?.kind !== "ident") continue;
      const name = nameTok.text;
      if (d.kind === "define" && !d.skipped) fileDefines.add(name);
      const here = current();
      let state: MacroState;
      if (d.kind === "undef") state = { k: "undef" };
      else {
        const fn = d.args[1]?.text === "(" && d.args[1].start === nameTok.end;
        let k = 1;
        const params: string[] = [];
        if (fn) {
          for (k = 2; k < d.args.length && d.args[k]!.text !== ")"; k++) if (d.args[k]!.kind === "ident") params.push(d.args[k]!.text);
          k++;
        }
        state = {
          k: "def",
          params: fn ? params : null,
          body: joinTokens(d.args.slice(k), cxx),
        };
      }
      for (const [table, live, key] of [
        [hipT, here?.hip ?? LIVE, "hip"],
        [cudaT, here?.cuda ?? LIVE, "cuda"],
      ] as const) {
        if (live.state === "dead") {
          // The file defines it only where this compile does not go: not defined here (unless something settled it already).
          if (d.kind === "define" && !d.skipped && !table.settles(name)) table.map.set(name, { k: "undef" });
          continue;
        }
        if (live.state === "live") table.map.set(name, state);
        else {
          // The innermost group whose current branch this compile may or may not take: if the macro was
          // surely defined on entering it (or the branch is `#ifndef X` defining X), it is surely defined after.
          let gi = groups.length - 1;
          while (gi > 0 && groups[gi]!.own[key].s !== "depends") gi--;
          const g = groups[gi]!;
          let before = g.entry[key].get(name);
          if (!before) g.entry[key].set(name, (before = table.get(name)));
          const surely = d.kind === "define" && (before.k === "def" || (before.k === "unknown" && before.defined) || notDefinedTest(g.directive) === name);
          table.map.set(name, {
            k: "unknown",
            names: union(live.names),
            defined: surely,
          });
        }
      }
      // A macro defined only where a HIP compile may go and the NVIDIA one surely does not is a HIP macro (not ggml's FP16_AVAILABLE, defined for HIP and for CUDA ≥ sm_60 alike).
      if (d.kind === "define" && here?.path && here.hip.state !== "dead" && here.cuda.state === "dead") hipNames.add(name);
      continue;
    }
    if (d.kind === "if" || d.kind === "ifdef" || d.kind === "ifndef") {
      if (firstConditional) {
        const x = notDefinedTest(d);
        const next = ds[i + 1];
        // An include guard, read on the file's first inclusion.
        if (x !== null && next?.kind === "define" && next.args[0]?.text === x) for (const t of [hipT, cudaT]) if (!t.settles(x)) t.map.set(x, { k: "undef" });
      }
      firstConditional = false;
      const outer = current();
      const fresh: Own = { s: "live" };
      const g: Group = {
        outer,
        hip: { taken: null, pending: null },
        cuda: { taken: null, pending: null },
        negHip: false,
        branch: { parent: outer, hip: LIVE, cuda: LIVE, path: null },
        own: { hip: fresh, cuda: fresh },
        entry: { hip: new Map(), cuda: new Map() },
        directive: d,
      };
      const { branch, own, negative } = openBranch(g, d, outer);
      g.branch = branch;
      g.own = own;
      g.negHip = negative;
      groups.push(g);
    } else if (d.kind === "endif") {
      if (groups.length === 0) continue;
      groups.pop();
    } else {
      // #elif, #elifdef, #elifndef, #else
      const g = groups[groups.length - 1];
      if (!g) continue;
      const { branch, own, negative } = openBranch(g, d, g.outer);
      g.branch = branch;
      g.own = own;
      g.directive = d;
      g.negHip ||= negative;
    }
    firstConditional = false;
    segStart.push(d.start);
    segBranch.push(current());
  }

  /** The branch enclosing original offset `offset` (the last conditional directive starting at or before it decides). */
  const at = (offset: number): Branch | null => {
    let lo = 0;
    let hi = segStart.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (segStart[mid]! <= offset) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found < 0 ? null : segBranch[found]!;
  };

  const hipSwitches: { name: string; loc: Loc }[] = [];
  const seen = new Set<string>();
  for (const d of ds) {
    if (d.skipped || d.kind === "define" || d.kind === "undef" || d.kind === "else" || d.kind === "endif") continue;
    for (const t of d.args) {
      const n = t.text;
      if (t.kind !== "ident" || seen.has(n) || !SWITCH_WORD.test(n) || RESERVED.test(n)) continue;
      seen.add(n);
      if (hipNames.has(n) || fileDefines.has(n) || predefinedNames.has(n) || hipT.model.defined.has(n) || hipT.model.undefined.has(n)) continue;
      hipSwitches.push({ name: n, loc: source.loc(t.start) });
    }
  }

  return {
    hip: (offset) => at(offset)?.hip ?? LIVE,
    cuda: (offset) => at(offset)?.cuda ?? LIVE,
    hipPath: (offset) => at(offset)?.path ?? null,
    hasHipPath,
    hipSwitches,
  };
}
