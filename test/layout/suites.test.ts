/**
 * `npm test` stays fast as suites are added: the slow files are listed in test/suites.ts (with the rule), and a file
 * whose code shows one of the slow kinds of work must be listed there. And no test asserts how long something took:
 * speed is measured in bench/, where a loaded machine shows up as a figure, not as a red test.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { FAST_STEPS } from "../../scripts/test-fast.ts";
import vitestConfig from "../../vitest.config.ts";
import { CONTRACT_TESTS, HEAVIEST_SLOW_FILES, ISOLATED_TEST_FILES, SLOW_TEST_FILES } from "../suites.ts";

const testFiles = readdirSync(path.join(repoRoot, "test"), { recursive: true, encoding: "utf8" })
  .filter((name) => /\.test(-d)?\.ts$/.test(name) && !name.split(path.sep).includes("fixtures"))
  .map((name) => `test/${name.split(path.sep).join("/")}`)
  .sort();
const isContract = (file: string) => file.startsWith(CONTRACT_TESTS.slice(0, CONTRACT_TESTS.indexOf("*")));
const fastFiles = testFiles.filter((file) => !isContract(file) && !Object.hasOwn(SLOW_TEST_FILES, file));
const read = (file: string) => readFileSync(path.join(repoRoot, file), "utf8");
/** The files the checks below read: every test file but this one, which spells the patterns out. */
const THIS_FILE = "test/layout/suites.test.ts";
const scanned = (files: string[]) => files.filter((file) => file !== THIS_FILE);

/** The slow kinds of work the rule names, as their code shows them. */
const SLOW_WORK: [string, RegExp][] = [
  ["packs or installs a package", /\["pack"|"pack",|\["install"|"install",/],
  ["builds the client (tsc emitting, or the dist/ lock the builds share)", /tsconfig\.build\.json|lockDist\(/],
  ["starts Prism", /\bstartPrism\(/],
  ["starts Chromium", /\blaunchChromium\(/],
  ["runs the benchmarks", /\brunBenchmarks\(/],
  ["compiles a TypeScript program", /\b(createProgram|typecheckModules|checkExampleTypes)\(/],
];
/** Places that start a child process; more than three of them in a file make it slow. */
const PROCESS_START = /\b(runScript|spawn|spawnSync|execFile|execFileSync|fork|exec)\(/g;

/** What a file does that the rule calls slow. */
function slowWork(text: string): string[] {
  const found = SLOW_WORK.filter(([, pattern]) => pattern.test(text)).map(([what]) => what);
  const starts = text.match(PROCESS_START)?.length ?? 0;
  return starts > 3 ? [...found, `starts a child process in ${starts} places`] : found;
}

describe("the fast command and the whole set", () => {
  it("every slow file exists and says why it is slow", () => {
    for (const [file, why] of Object.entries(SLOW_TEST_FILES)) {
      expect(existsSync(path.join(repoRoot, file)), file).toBe(true);
      expect(why.length, file).toBeGreaterThan(10);
    }
  });

  it("no file of the fast set does slow work: such a file is listed in test/suites.ts", () => {
    const offending = scanned(fastFiles).flatMap((file) => slowWork(read(file)).map((what) => `${file} ${what}`));
    expect(offending).toEqual([]);
  });

  it("a fast file that replaces a module (vi.mock) runs isolated: listed in ISOLATED_TEST_FILES", () => {
    const mocking = scanned(fastFiles).filter((file) => /\bvi\.(do)?[m]ock\(/.test(read(file)));
    expect(mocking).toContain("test/diff/internal-error.test.ts");
    expect(mocking.filter((file) => !Object.hasOwn(ISOLATED_TEST_FILES, file))).toEqual([]);
    for (const file of Object.keys(ISOLATED_TEST_FILES)) expect(existsSync(path.join(repoRoot, file)), file).toBe(true);
  });

  it("the check sees slow work where it is", () => {
    expect(slowWork(read("test/devkit/installed.test.ts"))).toContain("packs or installs a package");
    expect(slowWork(read("test/docs/browser.test.ts"))).toContain("starts Chromium");
    expect(slowWork(read("test/mock/prism.test.ts"))).toContain("starts Prism");
    expect(slowWork(read("test/bench/tiny.test.ts"))).toContain("runs the benchmarks");
    expect(slowWork(read("test/runtimes/bundle.test.ts"))).toContain(
      "builds the client (tsc emitting, or the dist/ lock the builds share)",
    );
    expect(slowWork('runScript("a"); spawn(x); spawnSync(y); execFileSync(z);')).toEqual([
      "starts a child process in 4 places",
    ]);
  });

  it("vitest runs the fast set in `fast`, the listed files in `slow`, Prism's in `contract`", () => {
    const projects = Object.fromEntries(
      (vitestConfig.test!.projects as { test: { name: string; include: string[]; exclude?: string[] } }[]).map(
        (project) => [project.test.name, project.test],
      ),
    );
    expect(Object.keys(projects)).toEqual(["fast", "fast-isolated", "slow", "contract"]);
    expect(projects["fast-isolated"]!.include).toEqual(Object.keys(ISOLATED_TEST_FILES));
    expect(projects.fast!.exclude).toEqual(expect.arrayContaining(Object.keys(ISOLATED_TEST_FILES)));
    expect(projects.slow!.include).toEqual(Object.keys(SLOW_TEST_FILES));
    expect(projects.contract!.include).toEqual([CONTRACT_TESTS]);
    expect(projects.fast!.exclude).toEqual(expect.arrayContaining([CONTRACT_TESTS, ...Object.keys(SLOW_TEST_FILES)]));
    expect(fastFiles.length).toBeGreaterThan(30);
  });

  it("npm test is Biome, tsc and the fast set but its slow-tagged tests; npm run test:all is Biome, tsc and everything", () => {
    const { scripts } = JSON.parse(read("package.json")) as { scripts: Record<string, string> };
    // npm test runs these three scripts side by side (scripts/test-fast.ts, FAST_STEPS).
    expect(scripts.test).toBe("node --conditions=partner-api-source scripts/test-fast.ts");
    expect(FAST_STEPS).toEqual(["check", "typecheck:fast", "test:fast-vitest"]);
    // On a re-run, vitest reads the modules it transformed before from node_modules/.experimental-vitest-cache
    // (keyed by each file's content, the config and the lockfile) instead of transforming them again.
    expect(scripts["test:fast-vitest"]).toBe(
      "vitest run --project fast --project fast-isolated --tags-filter '!slow' --fsModuleCache",
    );
    expect(scripts["test:all"]).toBe("npm run --silent check && npm run --silent typecheck && vitest run");
    expect(read(".ci/run")).toMatch(/^npm run test:all$/m);
  });
});

describe("the two compilers", () => {
  const manifest = JSON.parse(read("package.json")) as {
    scripts: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const installed = (dir: string) =>
    (JSON.parse(read(`node_modules/${dir}/package.json`)) as { name: string; version: string }).version;

  it("npm test checks types with TypeScript 7, pinned as the runtime matrix pins it; npm run typecheck (test:all) with tsc 5.9", () => {
    const matrix = (JSON.parse(read("runtimes/package.json")) as { dependencies: Record<string, string> }).dependencies;
    expect(manifest.devDependencies.typescript).toMatch(/^5\.9\.\d+$/);
    expect(manifest.devDependencies.typescript7).toBe(`npm:typescript@${matrix.typescript}`);
    expect(installed("typescript7")).toBe(matrix.typescript);
    expect(installed("typescript")).toBe(manifest.devDependencies.typescript);
    // Both over the same program: the one tsconfig, nothing emitted, each with an incremental cache of its own.
    const typecheck = manifest.scripts.typecheck!.split(" ");
    const fast = manifest.scripts["typecheck:fast"]!.split(" ");
    expect(typecheck.slice(0, 5)).toEqual([
      "node",
      "node_modules/typescript/bin/tsc",
      "--noEmit",
      "-p",
      "tsconfig.json",
    ]);
    expect(fast.slice(0, 5)).toEqual(["node", "node_modules/typescript7/bin/tsc", "--noEmit", "-p", "tsconfig.json"]);
    const cache = (args: string[]) => args[args.indexOf("--tsBuildInfoFile") + 1];
    expect(cache(fast)).toMatch(/^node_modules\/\.cache\//);
    expect(cache(fast)).not.toBe(cache(typecheck));
  });

  it("`tsc` on npm's PATH is 5.9's: both packages name their binary tsc, and npm links the first by name", () => {
    // A clean `npm ci` links node_modules/typescript's (sorted before typescript7, and npm never links over a link
    // it made in the same run); an `npm install` that adds or updates only typescript7 can link TypeScript 7's
    // instead, and `npm run typecheck` would then check with the wrong compiler: `npm ci` puts it right.
    const linked = realpathSync(path.join(repoRoot, "node_modules", ".bin", "tsc"));
    expect(linked, "node_modules/.bin/tsc is not TypeScript 5.9's: run npm ci").toBe(
      realpathSync(path.join(repoRoot, "node_modules", "typescript", "bin", "tsc")),
    );
  });
});

describe("the heaviest slow files, started first", () => {
  it("are files of the slow project, each once, and the config's sequencer puts them first", () => {
    expect(new Set(HEAVIEST_SLOW_FILES).size).toBe(HEAVIEST_SLOW_FILES.length);
    for (const file of HEAVIEST_SLOW_FILES) {
      expect(existsSync(path.join(repoRoot, file)), file).toBe(true);
      expect(Object.keys(SLOW_TEST_FILES), file).toContain(file);
    }
    expect(vitestConfig.test?.sequence?.sequencer?.name).toBe("HeaviestFirst");
  });
});

describe("no wall-clock assertion", () => {
  // An upper bound on a time: `expect(<something with performance.now(), Date.now() or a …ms/…Ms name>)
  // .toBeLessThan…`. Lower bounds (a retry waited at least its delay) hold under any load and are allowed.
  const UPPER_BOUND_ON_TIME =
    /expect\(([^;]*?(performance\.now\(\)|Date\.now\(\)|\b\w*(ms|Ms)\b)[^;]*?)\)\s*\.(not\.)?toBeLessThan(OrEqual)?\(/;

  it("no test asserts that something took less than some time", () => {
    const offending = scanned(testFiles).filter((file) => UPPER_BOUND_ON_TIME.test(read(file)));
    expect(offending).toEqual([]);
  });

  it("the check sees one", () => {
    expect(UPPER_BOUND_ON_TIME.test("expect(performance.now() - started).toBeLessThan(2_000);")).toBe(true);
    expect(UPPER_BOUND_ON_TIME.test("expect(result.ms, `took`).toBeLessThan(1_000);")).toBe(true);
    expect(UPPER_BOUND_ON_TIME.test("expect(first).toBeGreaterThanOrEqual(10_000 / 60 - 2);")).toBe(false);
    expect(UPPER_BOUND_ON_TIME.test("expect(result.status).toBeLessThan(500);")).toBe(false);
  });
});
