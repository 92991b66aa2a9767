/**
 * Biome (`npm run check`) and TypeScript 7's type check (`npm run typecheck:fast`, incremental) as tests of the fast
 * project: `npm test` is vitest alone, and these two run in a worker beside the other files instead of before them
 * (together about 4 s of CPU warm, 7 s cold: docs/design/test-suites.md). `npm run test:all` adds tsc 5.9 (`npm run
 * typecheck`, the compiler that builds the package: about 35 s of CPU, one thread), tagged slow, beside the slow
 * files rather than before them. Each runs as npm runs the script; its output is the failure message. The type tests
 * (`test/**\/*.test-d.ts`) are part of the program both compilers check.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/paths.ts";

const { scripts } = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
};

/** Runs an npm script's command line as npm does (sh -c, node_modules/.bin first on PATH); its code and output. */
function runScriptLine(name: string): Promise<{ code: number | null; output: string }> {
  const command = scripts[name];
  if (command === undefined) throw new Error(`package.json has no script "${name}"`);
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

describe.concurrent("the sources pass their checks", () => {
  it.for(["check", "typecheck:fast"])("npm run %s", { timeout: 120_000 }, passes);
  it("npm run typecheck (tsc 5.9)", { tags: ["slow"], timeout: 300_000 }, () => passes("typecheck"));
});
