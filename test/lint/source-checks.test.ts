/**
 * Biome (`npm run check`, on the files changed since it last passed here: test/helpers/passed-files.ts) and
 * TypeScript 7's type check (`npm run typecheck:fast`, incremental) as tests of the fast project: `npm test` is vitest alone, and these two run in a worker beside the other files instead of before them
 * (together about 4 s of CPU warm, 7 s cold: docs/design/test-suites.md). `npm run test:all` adds tsc 5.9 (`npm run
 * typecheck`, the compiler that builds the package: about 35 s of CPU, one thread), tagged slow, beside the slow
 * files rather than before them. Each runs as npm runs the script; its output is the failure message. The type tests
 * (`test/**\/*.test-d.ts`) are part of the program both compilers check.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { filesUnder } from "../../scripts/lib/check-stamp.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { changedSincePass, repositoryFiles } from "../helpers/passed-files.ts";

const { scripts } = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
};

/** Runs an npm script's command line as npm does (sh -c, node_modules/.bin first on PATH); its code and output. */
function runScriptLine(name: string): Promise<{ code: number | null; output: string }> {
  const command = scripts[name];
  if (command === undefined) throw new Error(`package.json has no script "${name}"`);
  return runCommandLine(command);
}

/** A file name as one word of `sh -c`. */
const shellWord = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

function runCommandLine(command: string): Promise<{ code: number | null; output: string }> {
  const env = { ...process.env, PATH: [path.join(repoRoot, "node_modules", ".bin"), process.env.PATH].join(":") };
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", command], { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output: Buffer.concat(chunks).toString("utf8") }));
  });
}

async function passes(name: string) {
  const { code, output } = await runScriptLine(name);
  expect(code, `npm run ${name} failed:\n${output}`).toBe(0);
}

/** Biome's verdict on a file depends on the file, Biome's version and its configuration (its rules are per file). */
function biomeSalt(): string {
  const version = JSON.parse(readFileSync(path.join(repoRoot, "node_modules/@biomejs/biome/package.json"), "utf8"));
  return `${version.version}\0${readFileSync(path.join(repoRoot, "biome.json"), "utf8")}`;
}

/** tsconfig.json, which is JSON here (the layout tests read it with TypeScript's own reader). */
const tsconfig = () => JSON.parse(readFileSync(path.join(repoRoot, "tsconfig.json"), "utf8")) as { include: string[] };

/** What tsc 7's verdict depends on besides the program's files: its version, the config, the installed packages. */
function typecheckSalt(): string {
  const read = (file: string) => readFileSync(path.join(repoRoot, file), "utf8");
  const version = JSON.parse(read("node_modules/typescript7/package.json")).version;
  return `${version}\0${scripts["typecheck:fast"]}\0${read("tsconfig.json")}\0${read("package-lock.json")}`;
}

/** More changed files than this are checked as `biome check .` (the whole tree) rather than named one by one. */
const NAMED_AT_MOST = 400;

describe.concurrent("the sources pass their checks", () => {
  it("npm run check (Biome), on every file changed since it last passed here", { timeout: 120_000 }, async () => {
    const files = repositoryFiles([".ts", ".js", ".json"]);
    expect(files.length).toBeGreaterThan(100);
    const { changed, passed } = changedSincePass("biome", files, biomeSalt());
    if (changed.length === 0) return;
    // Named files still go through biome.json's `files.includes` (generated/ and the rest stay out).
    const args = changed.length > NAMED_AT_MOST ? ["."] : ["--no-errors-on-unmatched", ...changed];
    const { code, output } = await runCommandLine(`biome check ${args.map(shellWord).join(" ")}`);
    expect(code, `npm run check failed:\n${output}`).toBe(0);
    passed();
  });
  it("npm run typecheck:fast, unless no file of the program changed since it last passed here", {
    timeout: 120_000,
  }, async () => {
    // A program's types depend on every file in it: tsc runs (incrementally) when any one changed, and not when
    // none did under the same compiler, tsconfig.json and installed packages (the lockfile).
    const { changed, removed, passed } = changedSincePass(
      "typecheck-fast",
      filesUnder(repoRoot, tsconfig().include, [".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".json"]),
      typecheckSalt(),
    );
    if (changed.length === 0 && removed.length === 0) return;
    await passes("typecheck:fast");
    passed();
  });
  it("npm run typecheck (tsc 5.9)", { tags: ["slow"], timeout: 300_000 }, () => passes("typecheck"));
});
