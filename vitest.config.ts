import { configDefaults, defineConfig } from "vitest/config";
import { SOURCE_CONDITION } from "./scripts/lib/source.ts";

export default defineConfig({
  // `partner-api-client` and `partner-api-devkit/…` resolve to their TypeScript sources (scripts/lib/source.ts):
  // in the test files (ssr, whose conditions vitest also passes to its workers for the modules it leaves to node)
  // and in the globalSetup files, which vitest runs in its own `__vitest__` environment.
  environments: { __vitest__: { resolve: { conditions: [SOURCE_CONDITION, "node"] } } },
  ssr: { resolve: { conditions: [SOURCE_CONDITION] } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "test/contract/**"],
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
          include: ["test/contract/**/*.test.ts"],
          globalSetup: ["test/contract/global-setup.ts"],
          // One Prism serves every file: run files one after another so timing checks measure Prism, not contention.
          fileParallelism: false,
        },
      },
    ],
  },
});
