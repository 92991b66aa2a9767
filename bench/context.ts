/**
 * What every benchmark is given, and the throwaway copy of the repository that benchmarks which write
 * files (pipeline, build, type-check) work in, so a run never touches the working tree.
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { linkNodeModules } from "../scripts/lib/repo-copy.ts";
import type { BenchSize } from "./harness.ts";
import { timeCommand } from "./harness.ts";
import type { BenchResult } from "./results.ts";

/** Set in the environment of the test runs the pipeline benchmark times, so that those runs cannot start a benchmark again. */
export const NESTED_ENV = "PARTNER_BENCH_NESTED";

export interface BenchContext {
  size: BenchSize;
  repoRoot: string;
  /** One line of progress on stderr. */
  progress(message: string): void;
  /** A copy of the repository (node_modules linked, not copied), made once per run. */
  sandbox(): Promise<string>;
  /** The sandbox after `npm run build` has run in it once (the built client in its dist/). */
  builtSandbox(): Promise<string>;
}

export interface Benchmark {
  name: string;
  title: string;
  run(context: BenchContext): Promise<BenchResult>;
}

// Not copied: installed packages (linked instead), build output and scratch folders. History is copied (a few MB),
// so anything that asks git (the contract diff, tests of committed files) works in the copy as in the repository.
const SKIPPED_AT_ROOT = new Set(["node_modules", "dist", ".tmp", "coverage", "test-output"]);

/** Copies the repository into a temporary folder, links its node_modules, and returns the folder. */
export async function makeSandbox(repoRoot: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "partner-bench-"));
  await cp(repoRoot, dir, {
    recursive: true,
    filter: (source) => {
      const relative = path.relative(repoRoot, source);
      if (relative === "") return true;
      const top = relative.split(path.sep)[0]!;
      return !SKIPPED_AT_ROOT.has(top) && !relative.endsWith(".tgz");
    },
  });
  await linkNodeModules(repoRoot, dir);
  return dir;
}

export function createContext(
  repoRoot: string,
  size: BenchSize,
  progress: (message: string) => void,
): BenchContext & { dispose(): Promise<void> } {
  let sandbox: Promise<string> | undefined;
  let built: Promise<string> | undefined;
  // Plain functions (no `this`): benchmarks destructure the context.
  const getSandbox = (): Promise<string> => (sandbox ??= makeSandbox(repoRoot));
  return {
    size,
    repoRoot,
    progress,
    sandbox: getSandbox,
    builtSandbox() {
      built ??= (async () => {
        const dir = await getSandbox();
        progress("building the client in the sandbox (npm run build)");
        await timeCommand("npm run build", {
          command: "npm",
          args: ["run", "--silent", "build"],
          cwd: dir,
          timeoutMs: 5 * 60_000,
        });
        return dir;
      })();
      return built;
    },
    async dispose() {
      if (sandbox) await rm(await sandbox.catch(() => ""), { recursive: true, force: true }).catch(() => undefined);
    },
  };
}
