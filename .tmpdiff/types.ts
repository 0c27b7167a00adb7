import { spawnSync } from "node:child_process";
import { writeFileSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { parseModule } from "../src/ir/build.js";
const T: [string, string[]][] = [
  ["szext.clamp.s32", ["d", "a", "b"]],
  ["vshl.u32.u32.u32.clamp.add", ["d", "a", "b", "c"]],
  ["match.any.sync.b32", ["d", "a", "m"]],
  ["match.any.sync.b64", ["d", "w", "m"]],
  ["match.all.sync.b32", ["d|p", "a", "m"]],
  ["shfl.sync.idx.b32", ["d|p", "a", "b", "c", "m"]],
  ["vote.sync.any.pred", ["p", "q", "m"]],
  ["vote.sync.ballot.b32", ["d", "q", "m"]],
  ["redux.sync.add.u32", ["d", "a", "m"]],
  ["redux.sync.min.f32", ["f", "f", "m"]],
  ["activemask.b32", ["d"]],
  ["bar.warp.sync", ["m"]],
];
const REGS = ["rb8", "rb16", "ru16", "rs16", "rf16", "rh2", "ru32", "rs32", "rf32", "rb64", "ru64", "rf64", "rpred", "0x1ffffffff", "-1", "0d3ff0000000000000", "1.5", "0f7fc00000", "0x8000000000000000", "(1+2)", "kp", "gv"];
const decl = ".reg .b8 rb8;\n.reg .b16 rb16;\n.reg .u16 ru16;\n.reg .s16 rs16;\n.reg .f16 rf16;\n.reg .f16x2 rh2;\n.reg .u32 ru32;\n.reg .s32 rs32;\n.reg .f32 rf32;\n.reg .b64 rb64;\n.reg .u64 ru64;\n.reg .f64 rf64;\n.reg .pred rpred;\n";
const dir = mkdtempSync(join(tmpdir(), "pd-"));
let n = 0, bad = 0;
for (const [op, ops] of T)
  for (let i = 0; i < ops.length; i++)
    for (const v of REGS) {
      const o = ops.map((x, k) => (k === i ? (x.includes("|") ? `${v}|p` : v) : x));
      const stmt = `${op} ${o.join(", ")}`;
      const text = `.version 8.7\n.target sm_100a\n.address_size 64\n.global .u32 gv;\n.visible .entry k(.param .u32 kp)\n{\n.reg .b32 d, a, b, c, m;\n.reg .pred p, q;\n.reg .f32 f;\n.reg .b64 w;\n${decl}${stmt};\nret;\n}\n`;
      const path = join(dir, "t.ptx");
      writeFileSync(path, text);
      const r = spawnSync("ptxas", ["-arch=sm_100a", path, "-o", "/dev/null"], { encoding: "utf8" });
      const theirs = [...new Set(r.stderr.split("\n").filter((l) => /; (error|fatal)/.test(l)).map((l) => l.replace(/.*; (error|fatal)\s*: /, "")))].sort();
      const mine = [...new Set(parseModule(text, path).diagnostics.filter((d) => d.severity === "error").map((d) => d.message))].sort();
      n++;
      if (JSON.stringify(theirs) !== JSON.stringify(mine)) { bad++; console.log(`${stmt}\n   ptxas: ${theirs.join(" | ")}\n   mine:  ${mine.join(" | ")}`); }
    }
console.log(`${n} cases, ${bad} differ`);
