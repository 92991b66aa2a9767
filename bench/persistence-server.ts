/**
 * The sandbox with a state file, in its own process, for the persistence benchmark: `{"state": file, "legacy":
 * bool, "compactAlways"?: bool}` as one JSON argument (legacy: the whole-file store of before the journal). Prints `{"url", "startMs"}`
 * once it listens, startMs being startSandbox's own time (reading the state included).
 */
import { startSandbox } from "../devkit/src/sandbox/index.ts";
import { storeChoice } from "../devkit/src/sandbox/internal.ts";
import { journalSettings } from "../devkit/src/sandbox/store.ts";

const { state, legacy, compactAlways } = JSON.parse(process.argv[2] ?? "{}") as {
  state: string;
  legacy: boolean;
  compactAlways?: boolean;
};
storeChoice.legacy = legacy;
// Compactions back to back (one starts after each write when none is running), to measure requests during them.
if (compactAlways) Object.assign(journalSettings, { compactAtBytes: 0, snapshotFactor: 0 });
// The benchmark holds our stdin open; when it goes (the benchmark ended, however), so do we.
process.stdin.on("close", () => process.exit(0));
process.stdin.resume();
const started = performance.now();
const sandbox = await startSandbox({ port: 0, seed: 1, state, frozen: true, startTime: "2030-01-01T00:00:00Z" });
process.stdout.write(`${JSON.stringify({ url: sandbox.url, startMs: performance.now() - started })}\n`);
process.once("SIGTERM", () => {
  sandbox.stop().then(() => process.exit(0));
});
