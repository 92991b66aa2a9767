import { enableCompileCache } from "node:module";
import { availableParallelism } from "node:os";
import path from "node:path";
import { configDefaults, defineConfig } from "vitest/config";
import { SOURCE_CONDITION } from "./scripts/lib/source.ts";

/**
 * Node's compile cache (V8's code for each module node loads, kept on disk between runs): this process, its
 * workers and every node process a test starts inherit the folder and read the dependencies' compiled code instead
 * of compiling them again. A folder given in NODE_COMPILE_CACHE is kept. Figures: docs/design/test-suites.md.
 */
export const COMPILE_CACHE = path.join(import.meta.dirname, "node_modules", ".cache", "node-compile-cache");
process.env.NODE_COMPILE_CACHE ??= COMPILE_CACHE;
enableCompileCache(process.env.NODE_COMPILE_CACHE);

/**
 * Which tests are slow is said by the file's name, or by one tag for one test:
 *   - `*.slow.test.ts`: a whole file that packs, installs or builds a package, starts Chromium or Prism, compiles a
 *     TypeScript program, runs the benchmarks, starts processes again and again, or takes seconds of CPU;
 *   - `it("…", { tags: ["slow"] }, …)`: one such test in an otherwise fast file;
 *   - `test/contract/`: the contract tests, against one Prism.
 * `npm test` runs the project `fast` without the tagged tests; `npm run test:all` (CI) runs all three.
 * The rule, in words: docs/api-team.md, "The fast command and the whole set".
 */
const SLOW = "test/**/*.slow.test.ts";
const CONTRACT = "test/contract/**/*.test.ts";

/**
 * How many test files run at once: one a core for `npm test`, one more than the cores for `npm run test:all` (npm
 * names the running script in npm_lifecycle_event), whose slow files wait on child processes (compilers, Chromium,
 * a registry) much of the time. vitest caps a percentage at the core count (`--maxWorkers=150%` is two workers on
 * two cores), so the count is set here. Figures: docs/design/test-suites.md.
 */
export function testWorkers(script: string | undefined): number {
  return availableParallelism() + (script === "test:all" ? 1 : 0);
}

export default defineConfig({
  // `partner-api-client` and `partner-api-devkit/…` resolve to their TypeScript sources (scripts/lib/source.ts):
  // in the test files (ssr, whose conditions vitest also passes to its workers for the modules it leaves to node)
  // and in the globalSetup files, which vitest runs in its own `__vitest__` environment.
  environments: { __vitest__: { resolve: { conditions: [SOURCE_CONDITION, "node"] } } },
  ssr: { resolve: { conditions: [SOURCE_CONDITION] } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // At least every core (vitest's default leaves one to its main process, which mostly waits).
    maxWorkers: testWorkers(process.env.npm_lifecycle_event),
    tags: [{ name: "slow", description: "slow work in an otherwise fast file: npm run test:all only" }],
    projects: [
      {
        extends: true,
        test: {
          name: "fast",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, SLOW, CONTRACT],
          // One module registry per worker, shared by its files: the sandbox, Ajv and the contracts load once per
          // worker (docs/design/test-suites.md has the figures). So no file replaces a module (`vi.mock` would replace it
          // for every later file of the worker): a test replaces one export with `vi.spyOn` and restores it.
          isolate: false,
        },
      },
      // The type tests (test/**/*.test-d.ts) are checked by tsc, which fails on them (npm run typecheck and
      // typecheck:fast, both tests of the fast project): vitest's typecheck would compile the program a third time.
      { extends: true, test: { name: "slow", include: [SLOW] } },
      {
        // Contract tests talk to one Prism process that this globalSetup starts and stops. Their files run beside
        // the other projects' (same workers): a project of one file at a time would run alone after all of them.
        extends: true,
        test: { name: "contract", include: [CONTRACT], globalSetup: ["test/contract/global-setup.ts"] },
      },
    ],
  },
});
