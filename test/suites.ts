/**
 * Which tests are slow. `npm test` (the everyday command; scripts/test-fast.ts runs it beside Biome and tsc) runs
 * the vitest project `fast`: every test file but these and the contract tests (test/contract/, which start Prism),
 * and in them every test but those tagged `slow` (a test that runs a CLI as a process, or other work of seconds of
 * CPU, in a file that is otherwise fast). `npm run test:all` (CI, `.ci/run`) runs
 * everything: the projects `fast`, `slow` (these files) and `contract`, tagged tests included.
 *
 * The rule (docs/api-team.md, "The fast command and the whole set"): a file is slow when it
 *   - packs, installs or builds a package (npm pack or install, tsc emitting the client);
 *   - starts Chromium or Prism, or compiles a TypeScript program (the docs' snippets, the contracts' examples);
 *   - runs the benchmarks;
 *   - starts child processes again and again (more than three: every tsx start costs about a second of CPU here);
 *   - or takes over 4 s on its own on a quiet machine (vitest prints each file's time).
 * A whole file that is slow is listed here; a slow test in a fast file is tagged: `it("…", { tags: ["slow"] }, …)`.
 * test/layout/suites.test.ts fails when a file that does one of the first four (as far as its code shows) is not
 * listed here, and when a listed file does not exist.
 */

/** Each slow file (from the repository root) and why it is slow. */
export const SLOW_TEST_FILES: Readonly<Record<string, string>> = {
  "test/bench/tiny.test.ts": "runs every benchmark at tiny size (about 60 s)",
  "test/client/example-types.test.ts":
    "compiles every example of both contracts against the generated types (about 14 s of CPU)",
  "test/conformance/faults.test.ts": "runs verify against a broken implementation per check fixture (about 30 runs)",
  "test/conformance/hostile.test.ts":
    "runs verify and the proxy as processes eight times against hostile servers and clients, hundreds of megabytes each",
  "test/conformance/proxy-recipe.test.ts":
    "runs the guide's proxy recipe as written twice (bash, npx, the proxy, npm test as processes)",
  "test/conformance/verify-prism.slow.test.ts": "starts Prism and runs verify against it",
  "test/conformance/verify.test.ts":
    "runs verify against the sandbox several times, npm run verify and proxy as processes",
  "test/msw/installed.test.ts":
    "packs the client and the devkit, installs them with MSW, Vitest and esbuild in a fresh project, runs Vitest and Chromium there",
  "test/consumer/package.test.ts": "builds and packs the client, installs it in a fresh project, starts Prism",
  "test/consumer/typescript.test.ts":
    "builds the client, type-checks a consumer project with TypeScript 5.9 and 7 (six tsc runs, about 20 s)",
  "test/dashboard/browser.test.ts":
    "starts Chromium and drives the dashboard through the whole flow, then every view at 390 and 1400 px (about 35 s)",
  "test/dashboard/csp.test.ts": "starts Chromium and opens every dashboard view, the console's Scalar bundle too",
  "test/devkit/lifecycle.test.ts":
    "starts the sandbox, the mock and the receiver as processes a dozen times (npm, npx, node) and kills them",
  "test/devkit/hostile-servers.test.ts":
    "starts the sandbox (twice), the mock with Prism, the proxy, webhooks listen and docs:preview as processes and sends each the hostile corpus",
  "test/devkit/installed.test.ts": "packs both packages, installs them, runs npx partner-api many times",
  "test/diff/cli.test.ts": "runs the gate as a process and git several times",
  "test/docs/browser.test.ts": "starts Chromium",
  "test/docs/build.test.ts": "builds the docs with Redocly and Chromium screenshots (about 10 s)",
  "test/docs/layout.test.ts":
    "builds the docs, starts Chromium and checks every page and dashboard view at two widths (about 2 min)",
  "test/docs/pages.test.ts": "builds the docs with Redocly (about 10 s of CPU)",
  "test/docs/preview.test.ts": "builds the docs, serves them (about 10 s)",
  "test/docs/samples-run.test.ts":
    "runs every code sample of the docs in eight languages against the sandbox (compiles Java, Go and C#; about 2 min)",
  "test/docs/snippets-typecheck.test.ts":
    "type-checks every TypeScript snippet of the docs in one program (about 15 s of CPU)",
  "test/flows/respect.test.ts": "runs redocly respect as a process three times against a sandbox (about 25 s)",
  "test/flows/respect-schemas.test.ts": "runs redocly respect as a process against a small server (about 8 s)",
  "test/lint/lint-cli.test.ts": "runs Redocly and Spectral over the contract, also as a process (about 5 s)",
  "test/mock/mock.test.ts": "starts Prism through npm run mock, as processes",
  "test/mock/prism.test.ts": "starts Prism many times",
  "test/runtimes/bundle.test.ts": "compiles the client with tsc, bundles it for three runtimes",
  "test/runtimes/entries.test.ts": "builds a TypeScript program over both package roots",
  "test/runtimes/node-only.test.ts":
    "copies the repository and runs npm run test:runtimes in it (Node, workerd, Chromium; about 40 s)",
  "test/release/registry.test.ts":
    "packs both packages, starts Verdaccio, publishes to it and installs from it, publint, arethetypeswrong, tsc, the sandbox",
  "test/scripts/release.test.ts":
    "makes releases in temporary git repositories: bundles the contract and runs git a dozen times",
  "test/sandbox/browser-boundary.test.ts": "starts Chromium against the sandbox's hosted pages and dashboard",
  "test/sandbox/delivery-fairness.test.ts":
    "640 receivers that never answer hold connections for the attempt limit (about 6 s)",
  "test/sandbox/hostile-bounds.test.ts":
    "starts the sandbox as a process three times and sends each an attack of hundreds of megabytes",
  "test/sandbox/crash.test.ts":
    "starts the sandbox as a process six times, kills it under 8 writers, fills a tmpfs (about 15 s)",
  "test/sandbox/persistence.test.ts": "starts the sandbox as a process ten times",
  "test/webhooks/cli.test.ts": "runs npm run webhooks as processes, with real retry waits",
};

/**
 * Fast files that need a module registry of their own. The project `fast` runs its files without isolation (one
 * module registry per worker, shared by the files it runs: the sandbox, Ajv and the contracts load once per worker,
 * which halves the fast command's time); a file that replaces a module with `vi.mock` would hand its stand-in to
 * every later file of that worker, so it runs in the project `fast-isolated` instead. test/layout/suites.test.ts
 * fails when a fast file calls `vi.mock` and is not listed here.
 */
export const ISOLATED_TEST_FILES: Readonly<Record<string, string>> = {
  "test/diff/internal-error.test.ts": "replaces the gate's walk with vi.mock to make it crash",
};

/** The tag of a slow test in a fast file (vitest.config.ts declares it; `npm test` leaves such tests out). */
export const SLOW_TAG_DESCRIPTION =
  "runs a CLI as a process, or other slow work, in an otherwise fast file: npm run test:all only";

/** The contract tests: one Prism for the whole folder (vitest project `contract`, part of the whole set). */
export const CONTRACT_TESTS = "test/contract/**/*.test.ts";

/**
 * The slow files that take longest, longest first, as measured in `bash .ci/run` on a fresh clone (2026-11-26:
 * 176, 168, 151, 112, 77, 44, 44, 44, 42, 37, 26 s): vitest.config.ts starts them first, so the last minutes of
 * the run are not one long file alone on one core.
 */
export const HEAVIEST_SLOW_FILES: readonly string[] = [
  "test/docs/samples-run.test.ts",
  "test/docs/browser.test.ts",
  "test/devkit/installed.test.ts",
  "test/release/registry.test.ts",
  "test/msw/installed.test.ts",
  "test/bench/tiny.test.ts",
  "test/consumer/package.test.ts",
  "test/dashboard/browser.test.ts",
  "test/devkit/lifecycle.test.ts",
  "test/docs/preview.test.ts",
  "test/docs/build.test.ts",
  "test/conformance/hostile.test.ts",
  "test/runtimes/node-only.test.ts",
];
