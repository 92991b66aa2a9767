/**
 * `npm run build`: compiles src/ (and generated/contract.ts) to dist/ as ESM with .d.ts, and copies
 * generated/schema.d.ts beside them (tsc does not copy declaration files), so that `./types` and the
 * client's declarations resolve inside the published package.
 */
import { spawnSync } from "node:child_process";
import { copyFile, mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { defineCommand, directorySize, isEntryPoint, JobFailure, main, step } from "partner-api-devkit/cli";
import { rel, repoRoot } from "./lib/paths.ts";

const distDir = path.join(repoRoot, "dist");

export const buildCommand = defineCommand({
  name: "npm run build --",
  summary: "compile src/ to dist/ (ESM and .d.ts) with the generated declarations beside it",
  // Everything goes to stderr: `npm pack --json` runs this as prepack and its stdout must stay JSON.
  usage: `Usage: npm run build

Cleans dist/, compiles with tsconfig.build.json and copies generated/schema.d.ts into dist/generated/.
Prints only to stderr, so \`npm pack --json\` (which runs it as prepack) keeps a JSON stdout.

Exit codes: 0 built, 1 the compiler failed, 2 bad input, 3 a bug.`,
  options: {},
  async run({ io }) {
    await step(io, `clean ${rel(distDir)}/`, () => rm(distDir, { recursive: true, force: true }));
    await step(io, "compile with tsconfig.build.json", () => {
      const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc");
      const result = spawnSync(process.execPath, [tsc, "-p", path.join(repoRoot, "tsconfig.build.json")], {
        cwd: repoRoot,
        encoding: "utf8",
      });
      if (result.status !== 0) throw new JobFailure(`tsc failed:\n${result.stdout}${result.stderr}`);
    });
    await step(io, "copy generated/schema.d.ts", async () => {
      await mkdir(path.join(distDir, "generated"), { recursive: true });
      await copyFile(path.join(repoRoot, "generated", "schema.d.ts"), path.join(distDir, "generated", "schema.d.ts"));
    });
    const { files, bytes } = await directorySize(distDir);
    return `built ${rel(distDir)}/: ${files} files, ${(bytes / 1024).toFixed(1)} KiB`;
  },
});

if (isEntryPoint(import.meta.url)) await main(buildCommand);
