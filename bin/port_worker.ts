/**
 * @fileoverview The worker thread of `ptx-lower port` on many files (bin/port.ts `portAll`):
 * ports each file it is sent (`portFile`) and posts the result back, or the error's text. It
 * says `ready` once loaded: only then is it given files, so that none waits on its start-up.
 *
 * It loads the HIP output target alone (targets/hip/module.ts, the registered `hip` target of
 * src/compose.ts) and makes the headers with it (`hipHeaderWith`), not the whole composition
 * of every target: the thread then starts in ~0.3 s instead of ~2 s. Nothing it runs reads
 * the target registry (test/port_cli.test.ts checks the workers' output against one thread's).
 */
import { parentPort } from "node:worker_threads";
import { hipOutput } from "../targets/hip/module.js";
import type { PortFileJob } from "./port.js";
import { hipHeaderWith, portFile } from "./port.js";

const header = hipHeaderWith(hipOutput);
parentPort?.on("message", (job: PortFileJob) => {
  portFile(job, header).then(
    (result) => parentPort!.postMessage({ index: job.index, result }),
    (e: unknown) => parentPort!.postMessage({ index: job.index, error: `${job.name}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}` }),
  );
});
parentPort?.postMessage({ ready: true });
