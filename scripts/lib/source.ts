/**
 * How this repository runs its packages from source. `partner-api-client` (the repository root) and
 * `partner-api-devkit` (devkit/) are npm workspace links in node_modules/, and each entry of their package.json
 * "exports" has a first branch under this condition pointing at its TypeScript source, so `partner-api-devkit/cli`
 * and `partner-api-client` need no build here. Every tool of the repository sets the condition: tsc
 * (tsconfig.json `customConditions`), vitest (vitest.config.ts `ssr.resolve.conditions`), esbuild (`conditions`)
 * and node (`--conditions`, in every npm script and in SOURCE_NODE_ARGS). A partner's project never sets it and
 * gets the built files. test/layout/imports.test.ts holds the places in step.
 */

export const SOURCE_CONDITION = "partner-api-source";

/**
 * Node's arguments to run a TypeScript file of the repository: the source condition alone. Node 24 runs the
 * TypeScript itself (type stripping: tsconfig.json's `erasableSyntaxOnly` keeps every file to syntax it can erase),
 * so no loader is needed.
 */
export const SOURCE_NODE_ARGS: readonly string[] = [`--conditions=${SOURCE_CONDITION}`];
