/**
 * @fileoverview The worker thread of `ptx-lower port` on many files (bin/port.ts `portAll`):
 * registers the targets (src/compose.ts), then ports each file it is sent (`portFile`, with
 * the HIP header) and posts the result back, or the error's text. It says `ready` once loaded:
 * only then is it given files, so that none waits on its start-up.
 */
import "../src/compose.js";
import { parentPort } from "node:worker_threads";
import type { PortFileJob } from "./port.js";
import { hipHeader, portFile } from "./port.js";

parentPort?.on("message", (job: PortFileJob) => {
  portFile(job, hipHeader).then(
    (result) => parentPort!.postMessage({ index: job.index, result }),
    (e: unknown) => parentPort!.postMessage({ index: job.index, error: `${job.name}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}` }),
  );
});
parentPort?.postMessage({ ready: true });
