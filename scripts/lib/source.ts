/**
 * How this repository runs its packages from source. `partner-api-client` (the repository root) and
 * `partner-api-devkit` (devkit/) are npm workspace links in node_modules/, and each entry of their package.json
 * "exports" has a first branch under this condition pointing at its TypeScript source, so `partner-api-devkit/cli`
 * and `partner-api-client` need no build here. Every tool of the repository sets the condition: tsc
 * (tsconfig.json `customConditions`), vitest (vitest.config.ts `ssr.resolve.conditions`), esbuild (`conditions`)
 * and tsx (node's `--conditions`, in every npm script and in TSX_NODE_ARGS). A partner's project never sets it and
 * gets the built files. test/layout/imports.test.ts holds the places in step.
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

export const SOURCE_CONDITION = "partner-api-source";

/**
 * Node's arguments to run a TypeScript file of the repository: the source condition and tsx's loader, found from
 * here (`--import tsx` alone would look for tsx from the working directory, which may be a scratch folder).
 */
export const TSX_NODE_ARGS: readonly string[] = [
  `--conditions=${SOURCE_CONDITION}`,
  "--import",
  pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href,
];
