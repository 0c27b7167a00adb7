/**
 * @fileoverview Progress of a long command (`verify` per routine, `report` per module, `check`
 * per vector and target row, `port` per file), always on standard error, never on standard
 * output: a cli-progress bar where standard error is a terminal (cli-progress is imported only
 * then), else progress lines for a log, each with the time so far and an estimate of the time
 * left. One definition for every command.
 */
import type { SingleBar } from "cli-progress";
import { escapeLine } from "../src/diag.js";

/** A running progress display. */
export interface Progress {
  /**
   * `done` of the total units are finished (`done` never decreases). `now`: what runs now
   * (e.g. the target row `hip gfx942`), shown after the bar, and in a log a line of its own
   * when it changes. `total`: the number of units where it was not known at the start.
   */
  update(done: number, now?: string, total?: number): void;
  /**
   * What the command does after its units are queued (e.g. `hip gfx942: compiling the
   * functions of 17 routines (clang-19)`): after the bar on a terminal; in a log, a line when
   * the phase (the part before the first `:`) changes, when it reaches its last count
   * (`17/17`), and at least every 10 s while it reports.
   */
  note(what: string): void;
  /** Ends the display (the bar is cleared of its cursor handling); idempotent. */
  stop(): void;
}

export interface ProgressOptions {
  /** The command's name, the first word of each line (`verify`). */
  command: string;
  /** What is counted, plural (`routines`, `modules`, `files`). */
  unit: string;
  /** How many units there are (≥ 0; 0 where the first update says). */
  total: number;
  /** A bar (on a terminal) instead of lines; default: whether standard error is a terminal. */
  bar?: boolean;
  /** No display at all (nothing is written). */
  quiet?: boolean;
  /** In a log, no lines below this many units (a short run stays silent); default 0. */
  minTotal?: number;
}

/** At most this long between two lines of a log while something progresses. */
const LINE_EVERY_MS = 10_000;

/** Seconds as a log shows them: `4.2 s`, `1 min 5 s`, `2 h 3 min`. */
export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const s = Math.round(seconds);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/**
 * The time left, estimated from the rate so far (`done` units in `elapsed` seconds):
 * ` about 1 min 5 s left`, or "" before the first unit and after the last.
 */
export function timeLeft(done: number, total: number, elapsed: number): string {
  if (done <= 0 || done >= total) return "";
  const left = (elapsed / done) * (total - done);
  return `, about ${left < 60 ? `${Math.max(1, Math.round(left))} s` : duration(left)} left`;
}

/**
 * Starts a progress display on standard error (see the file comment). In a log: a line
 * `COMMAND: D/T UNIT done, S s[, about R left][; at NOW]` each time another twentieth of the
 * units is done, when what runs now changes, and at least every 10 s while any progresses;
 * never the same count and `now` twice; the last count always.
 */
export async function startProgress(o: ProgressOptions): Promise<Progress> {
  const started = Date.now();
  const seconds = () => (Date.now() - started) / 1000;
  const useBar = o.bar ?? !!process.stderr.isTTY;
  if (o.quiet || (!useBar && o.total < (o.minTotal ?? 0))) return { update: () => {}, note: () => {}, stop: () => {} };
  if (useBar) {
    const { default: cliProgress } = await import("cli-progress");
    const bar: SingleBar = new cliProgress.SingleBar(
      { format: `${o.command} [{bar}] {value}/{total} ${o.unit}  {eta_formatted} left  {note}`, hideCursor: true, stream: process.stderr },
      cliProgress.Presets.shades_classic,
    );
    // Drawn once the total is known (a total of 0 waits for the first update that gives one).
    let state: "waiting" | "drawn" | "stopped" = "waiting";
    const draw = (total: number) => {
      if (state === "waiting" && total > 0) {
        bar.start(total, 0, { note: "" });
        state = "drawn";
      }
      return state === "drawn";
    };
    draw(o.total);
    return {
      update: (done, now, total) => {
        if (!draw(total ?? o.total)) return;
        if (total !== undefined && total !== bar.getTotal()) bar.setTotal(total);
        bar.update(done, now === undefined ? {} : { note: escapeLine(now) });
      },
      note: (what) => {
        if (state === "drawn") bar.update({ note: escapeLine(what) });
      },
      stop: () => {
        if (state === "drawn") bar.stop();
        state = "stopped";
      },
    };
  }
  let total = o.total;
  let step = Math.max(1, Math.ceil(total / 20));
  let shown = 0;
  let shownNow: string | undefined;
  let last = started;
  let phase = "";
  let lastNote = 0;
  return {
    update: (done, now, newTotal) => {
      if (newTotal !== undefined && newTotal !== total) {
        total = newTotal;
        step = Math.max(1, Math.ceil(total / 20));
      }
      const t = Date.now();
      const changed = now !== undefined && now !== shownNow;
      if (!changed && (done <= shown || (done < total && Math.floor(done / step) === Math.floor(shown / step) && t - last < LINE_EVERY_MS))) return;
      shown = Math.max(shown, done);
      if (now !== undefined) shownNow = now;
      last = t;
      const s = seconds();
      process.stderr.write(`${o.command}: ${done}/${total} ${o.unit} done, ${s.toFixed(1)} s${timeLeft(done, total, s)}${now && done < total ? `; at ${escapeLine(now)}` : ""}\n`);
    },
    note: (what) => {
      const t = Date.now();
      const p = what.split(":")[0]!;
      // The last count of a phase (`17/17`) is always shown.
      if (p === phase && t - lastNote < LINE_EVERY_MS && !/\b(\d+)\/\1\b/.test(what)) return;
      phase = p;
      lastNote = t;
      process.stderr.write(`${o.command}: ${escapeLine(what)}, ${seconds().toFixed(1)} s\n`);
    },
    stop: () => {},
  };
}
