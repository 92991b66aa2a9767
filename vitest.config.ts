import { availableParallelism } from "node:os";
import path from "node:path";
import { configDefaults, defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { SOURCE_CONDITION } from "./scripts/lib/source.ts";
import {
  CONTRACT_TESTS,
  HEAVIEST_SLOW_FILES,
  ISOLATED_TEST_FILES,
  SLOW_TAG_DESCRIPTION,
  SLOW_TEST_FILES,
} from "./test/suites.ts";

/**
 * Vitest's order, but the slow project's heaviest files first (test/suites.ts, HEAVIEST_SLOW_FILES): on a fresh
 * clone vitest knows no durations, and a three-minute file started last ran alone on one core while the other
 * waited.
 */
class HeaviestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = HEAVIEST_SLOW_FILES.indexOf(path.relative(import.meta.dirname, file.moduleId));
      return index === -1 ? HEAVIEST_SLOW_FILES.length : index;
    };
    const slots = sorted.flatMap((file, index) => (file.project.name === "slow" ? [index] : []));
    const slow = slots.map((index) => sorted[index]!).sort((a, b) => rank(a) - rank(b));
    slots.forEach((index, position) => {
      sorted[index] = slow[position]!;
    });
    return sorted;
  }
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
    // Every core (vitest's default leaves one to its main process, which mostly waits: one worker on 2 cores).
    maxWorkers: availableParallelism(),
    sequence: { sequencer: HeaviestFirst },
    // `npm test` runs the project `fast` without the tests tagged `slow`; `npm run test:all` (CI) runs everything.
    // Which files and tests are slow, and the rule: test/suites.ts.
    tags: [{ name: "slow", description: SLOW_TAG_DESCRIPTION }],
    projects: [
      {
        extends: true,
        test: {
          name: "fast",
          include: ["test/**/*.test.ts"],
          exclude: [
            ...configDefaults.exclude,
            CONTRACT_TESTS,
            ...Object.keys(SLOW_TEST_FILES),
            ...Object.keys(ISOLATED_TEST_FILES),
          ],
          // One module registry per worker, shared by its files (test/suites.ts, ISOLATED_TEST_FILES says why).
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: "fast-isolated", include: Object.keys(ISOLATED_TEST_FILES) },
      },
      {
        extends: true,
        test: {
          name: "slow",
          include: Object.keys(SLOW_TEST_FILES),
          // The type tests (test/**/*.test-d.ts) as vitest reports them, by name: a second full tsc run, so here
          // and not in the fast set, where `npm run typecheck` (tsc over everything, test-d files included) fails
          // on the same errors.
          typecheck: {
            enabled: true,
            include: ["test/**/*.test-d.ts"],
            tsconfig: "./tsconfig.json",
          },
        },
      },
      {
        // Contract tests talk to one Prism process that this globalSetup starts and stops.
        extends: true,
        test: {
          name: "contract",
          include: [CONTRACT_TESTS],
          globalSetup: ["test/contract/global-setup.ts"],
          // One Prism serves every file: run files one after another.
          fileParallelism: false,
        },
      },
    ],
  },
});
