/**
 * `npm run build`: compiles src/ (and generated/contract.ts) to dist/ as ESM with .d.ts, and copies
 * generated/schema.d.ts beside them (tsc does not copy declaration files), so that `./types` and the
 * client's declarations resolve inside the published package.
 */
import { spawnSync } from "node:child_process";
import { copyFile, mkdir, readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { fail, formatDuration, step } from "./lib/log.ts";
import { rel, repoRoot } from "./lib/paths.ts";

export const distDir = path.join(repoRoot, "dist");

async function sizeOf(dir: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    files++;
    bytes += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return { files, bytes };
}

const started = performance.now();
if (process.argv.length > 2) fail(`unknown argument "${process.argv[2]}"; usage: npm run build`, 2);
try {
  await step(`clean ${rel(distDir)}/`, () => rm(distDir, { recursive: true, force: true }));
  await step("compile with tsconfig.build.json", () => {
    const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc");
    const result = spawnSync(process.execPath, [tsc, "-p", path.join(repoRoot, "tsconfig.build.json")], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    if (result.status !== 0) throw new Error(`tsc failed:\n${result.stdout}${result.stderr}`);
  });
  await step("copy generated/schema.d.ts", async () => {
    await mkdir(path.join(distDir, "generated"), { recursive: true });
    await copyFile(path.join(repoRoot, "generated", "schema.d.ts"), path.join(distDir, "generated", "schema.d.ts"));
  });
  const { files, bytes } = await sizeOf(distDir);
  // stderr: `npm pack --json` runs this as prepack and its stdout must stay JSON.
  console.error(
    `built ${rel(distDir)}/: ${files} files, ${(bytes / 1024).toFixed(1)} KiB (${formatDuration(performance.now() - started)})`,
  );
} catch (error) {
  fail((error as Error).message);
}
