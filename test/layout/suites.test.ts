/**
 * Which tests `npm test` runs is said by each file's name (vitest.config.ts): `*.slow.test.ts` and the contract tests
 * run in `npm run test:all` only; one slow test in a fast file carries the tag `slow`. These checks hold the names and the projects to each other. And no test asserts how long
 * something took: speed is measured in bench/, where a loaded machine shows up as a figure, not as a red test.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { getCompileCacheDir } from "node:module";
import { availableParallelism } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";
import vitestConfig, { COMPILE_CACHE, testWorkers } from "../../vitest.config.ts";

const testFiles = readdirSync(path.join(repoRoot, "test"), { recursive: true, encoding: "utf8" })
  .filter((name) => /\.test\.ts$/.test(name) && !name.split(path.sep).includes("fixtures"))
  .map((name) => `test/${name.split(path.sep).join("/")}`)
  .sort();
const read = (file: string) => readFileSync(path.join(repoRoot, file), "utf8");
/** The files the checks below read: every test file but this one, which spells the patterns out. */
const THIS_FILE = "test/layout/suites.test.ts";
const scanned = (files: string[]) => files.filter((file) => file !== THIS_FILE);

interface Project {
  name: string;
  include: string[];
  exclude?: string[];
}
const projects = (vitestConfig.test!.projects as { test: Project }[]).map((project) => project.test);
const matches = (file: string, globs: readonly string[] = []) => globs.some((glob) => path.matchesGlob(file, glob));
/** The projects whose files include `file`, as vitest's include and exclude globs pick them. */
const projectsOf = (file: string) =>
  projects
    .filter((project) => matches(file, project.include) && !matches(file, project.exclude))
    .map((project) => project.name);

describe("the fast command and the whole set", () => {
  it("every test file runs in exactly one project, the one its name says", () => {
    const expected = (file: string) =>
      file.endsWith(".slow.test.ts") ? "slow" : file.startsWith("test/contract/") ? "contract" : "fast";
    const wrong = testFiles
      .map((file) => ({ file, projects: projectsOf(file), expected: expected(file) }))
      .filter(({ projects, expected }) => projects.length !== 1 || projects[0] !== expected)
      .map(({ file, projects, expected }) => `${file}: in [${projects.join(", ")}], expected ${expected}`);
    expect(wrong).toEqual([]);
    expect(projects.map((project) => project.name)).toEqual(["fast", "slow", "contract"]);
    // Each kind is present, so a glob that matched nothing (a typo) fails here rather than empties a project.
    const counts = Object.fromEntries(projects.map((project) => [project.name, 0]));
    for (const file of testFiles) for (const name of projectsOf(file)) counts[name]! += 1;
    expect(
      Object.values(counts).every((count) => count > 0),
      JSON.stringify(counts),
    ).toBe(true);
  });

  it("no fast file replaces a module (vi.mock): the fast files share a module registry", () => {
    const mocksAModule = /\bvi\.(do)?[m]ock\(/;
    const mocking = scanned(testFiles).filter((file) => mocksAModule.test(read(file)));
    expect(mocking.filter((file) => projectsOf(file).includes("fast"))).toEqual([]);
    // The check reads the files it is given: a file that mocks is found.
    expect(mocksAModule.test('vi.mock("../x.ts", () => ({}));')).toBe(true);
  });

  it("vitest, its workers and the node processes tests start share node's compile cache", () => {
    expect(COMPILE_CACHE).toBe(path.join(repoRoot, "node_modules", ".cache", "node-compile-cache"));
    // The folder the config names, unless NODE_COMPILE_CACHE named another before vitest started.
    const folder = process.env.NODE_COMPILE_CACHE ?? "(NODE_COMPILE_CACHE not set)";
    // Node keeps each version's code in a folder of its own inside it.
    expect(path.dirname(getCompileCacheDir()!)).toBe(folder);
    const child = spawnSync(process.execPath, ["-p", 'require("node:module").getCompileCacheDir()'], {
      encoding: "utf8",
    });
    expect(child.stdout.trim()).toBe(getCompileCacheDir());
  });

  it("npm test is vitest over the fast projects without the tagged tests; npm run test:all is vitest over every project", () => {
    const { scripts } = JSON.parse(read("package.json")) as { scripts: Record<string, string> };
    // On a re-run, vitest reads the modules it transformed before from node_modules/.experimental-vitest-cache
    // (keyed by each file's content, the config and the lockfile) instead of transforming them again.
    expect(scripts.test).toBe("vitest run --project fast --tags-filter '!slow' --fsModuleCache");
    expect(scripts["test:all"]).toBe("vitest run");
    // A worker a core for npm test; one more for the whole set, whose slow files wait on child processes.
    const cores = availableParallelism();
    expect([testWorkers("test"), testWorkers("test:all"), testWorkers(undefined)]).toEqual([cores, cores + 1, cores]);
    // The type tests (*.test-d.ts) are in no vitest project: the program tsc checks holds them.
    expect((JSON.parse(read("tsconfig.json")) as { include: string[] }).include).toContain("test");
    expect(read(".ci/run")).toMatch(/^npm run test:all$/m);
    expect(vitestConfig.test?.tags?.map((tag) => tag.name)).toEqual(["slow"]);
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
