/**
 * The sandbox with a state file, in its own process, for the persistence benchmark: `{"state": file, "design":
 * "journal" | "whole-file", "compactAlways"?: bool}` as one JSON argument. The whole-file store of before the
 * journal (whole-file-store.ts) and the journal's settings are handed to the sandbox through its store interface.
 * Prints `{"url", "startMs"}` once it listens, startMs being the sandbox's own start time (reading the state
 * included).
 */
import { startSandboxWith } from "../devkit/src/sandbox/compose.ts";
import { openJournalStore } from "../devkit/src/sandbox/store/journal-store.ts";
import { WholeFileStore } from "./whole-file-store.ts";

const { state, design, compactAlways } = JSON.parse(process.argv[2] ?? "{}") as {
  state: string;
  design: "journal" | "whole-file";
  compactAlways?: boolean;
};
// The benchmark holds our stdin open; when it goes (the benchmark ended, however), so do we.
process.stdin.on("close", () => process.exit(0));
process.stdin.resume();
const started = performance.now();
const sandbox = await startSandboxWith(
  { port: 0, seed: 1, state, frozen: true, startTime: "2030-01-01T00:00:00Z" },
  {
    storeFor: (context) =>
      design === "whole-file"
        ? new WholeFileStore(context)
        : // Compactions back to back (one starts after each write when none is running), to measure requests during them.
          openJournalStore(context, compactAlways ? { compactAtBytes: 0, snapshotFactor: 0 } : {}),
  },
);
process.stdout.write(`${JSON.stringify({ url: sandbox.url, startMs: performance.now() - started })}\n`);
process.once("SIGTERM", () => {
  sandbox.stop().then(() => process.exit(0));
});
