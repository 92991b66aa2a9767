/**
 * The sandbox with a state file, in its own process, for the persistence benchmark: `{"state": file,
 * "synchronous": "FULL" | "NORMAL", "groupCommit"?: bool}` as one JSON argument, handed to the SQLite store through
 * the sandbox's store interface. Prints `{"url", "startMs"}` once it listens, startMs being the sandbox's own start
 * time (reading the state included).
 */
import { startSandboxWith } from "../devkit/src/sandbox/compose.ts";
import { openSqliteStore, type SqliteStoreOptions } from "../devkit/src/sandbox/store/sqlite-store.ts";

const { state, ...store } = JSON.parse(process.argv[2] ?? "{}") as { state: string } & SqliteStoreOptions;
// The benchmark holds our stdin open; when it goes (the benchmark ended, however), so do we.
process.stdin.on("close", () => process.exit(0));
process.stdin.resume();
const started = performance.now();
const sandbox = await startSandboxWith(
  { port: 0, seed: 1, state, frozen: true, startTime: "2030-01-01T00:00:00Z" },
  { storeFor: (context) => openSqliteStore(context, store) },
);
process.stdout.write(`${JSON.stringify({ url: sandbox.url, startMs: performance.now() - started })}\n`);
process.once("SIGTERM", () => {
  sandbox.stop().then(() => process.exit(0));
});
