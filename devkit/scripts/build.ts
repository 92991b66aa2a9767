/**
 * `npm run build -w devkit` (and the devkit's prepack): bundles devkit/src with esbuild into dist/ so the
 * published package runs on plain `node`, with no TypeScript loader and no access to this repository:
 *   dist/cli.js      the `partner-api` executable
 *   dist/sandbox.js  `startSandbox()` for `import … from "partner-api-devkit/sandbox"`, with dist/sandbox.d.ts
 *   dist/*.json      the bundled contracts the tools serve (copied from generated/)
 *   dist/scenarios/  the sandbox's shipped scenarios (copied from src/sandbox/scenarios/)
 *   dist/dashboard/  the sandbox dashboard's page (src/dashboard/page/) and Scalar's bundle for its console
 * The few client modules the tools use (webhook signing and the receiver kit) and the CLI runner are bundled
 * in; npm packages stay imports, and every one of them must be a declared dependency of the devkit.
 */
import { spawnSync } from "node:child_process";
import { copyFile, cp, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";
import { type CliIO, defineCommand, isEntryPoint, JobFailure, main, step } from "../../scripts/lib/cli.ts";
import { directorySize } from "../../scripts/lib/files.ts";
import { pageDir, scalarBundlePath } from "../src/dashboard/index.ts";

const devkitRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = path.resolve(devkitRoot, "..");
const distDir = path.join(devkitRoot, "dist");

/** The bundled contracts copied into dist/ (the sandbox's control contract once it is bundled). */
const CONTRACTS = ["openapi.json", "sandbox.json"];

interface Entry {
  name: string;
  source: string;
  executable: boolean;
}

const ENTRIES: Entry[] = [
  { name: "cli", source: "src/cli/main.ts", executable: true },
  { name: "sandbox", source: "src/sandbox/index.ts", executable: false },
];

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** The npm packages a bundle imports (node: builtins aside). */
function packagesImported(metafile: Metafile): string[] {
  const names = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const { path: specifier, external } of output.imports) {
      if (!external || specifier.startsWith("node:") || builtinModules.includes(specifier)) continue;
      const parts = specifier.split("/");
      names.add(specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!);
    }
  }
  return [...names].sort();
}

/**
 * Bundles the entries into `outDir` and copies the contracts beside them; returns the npm packages the bundles
 * import. `outDir` must be a `dist/` folder under a package.json (the built code finds its files from there).
 */
export async function bundleDevkit(
  outDir: string,
  io: CliIO,
  entries: readonly Entry[] = ENTRIES,
): Promise<Set<string>> {
  const imported = new Set<string>();
  for (const entry of entries) {
    const result = await step(io, `bundle ${entry.source} → ${path.basename(outDir)}/${entry.name}.js`, () =>
      build({
        absWorkingDir: devkitRoot,
        entryPoints: { [entry.name]: entry.source },
        outdir: outDir,
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node20",
        packages: "external",
        metafile: true,
        legalComments: "none",
        logLevel: "error",
        banner: entry.executable ? { js: "#!/usr/bin/env node" } : {},
      }),
    );
    for (const name of packagesImported(result.metafile!)) imported.add(name);
  }
  await step(io, "copy the shipped scenarios to scenarios/", async () => {
    const source = path.join(devkitRoot, "src", "sandbox", "scenarios");
    await cp(source, path.join(outDir, "scenarios"), { recursive: true, filter: (file) => !file.endsWith(".md") });
  });
  await step(io, "copy the dashboard's page and Scalar's standalone bundle to dashboard/", () =>
    copyDashboard(path.join(outDir, "dashboard")),
  );
  await step(io, `copy ${CONTRACTS.join(", ")} from generated/`, async () => {
    for (const file of CONTRACTS) {
      const source = path.join(repoRoot, "generated", file);
      if (await exists(source)) await copyFile(source, path.join(outDir, file));
      else if (file === "openapi.json") throw new JobFailure(`generated/${file} is missing: run \`npm run bundle\``);
    }
  });
  return imported;
}

/**
 * The sandbox dashboard's files: the page (devkit/src/dashboard/page/, served as they are) and, for its
 * console, the one browser file of @scalar/api-reference (a dev dependency: the package ships this file, not
 * Scalar's 260 packages), with a note of its version and licence beside it.
 */
async function copyDashboard(target: string): Promise<void> {
  await cp(pageDir, target, { recursive: true });
  const scalar = path.join(target, "scalar");
  await mkdir(scalar, { recursive: true });
  await copyFile(scalarBundlePath(), path.join(scalar, "standalone.js"));
  const manifest = JSON.parse(
    await readFile(path.join(path.dirname(scalarBundlePath()), "..", "..", "package.json"), "utf8"),
  ) as { name: string; version: string; license: string };
  await writeFile(
    path.join(scalar, "NOTICE.txt"),
    `standalone.js is dist/browser/standalone.js of ${manifest.name} ${manifest.version} by Scalar ` +
      `(${manifest.license} licence), unchanged. The sandbox dashboard's console serves it.\n`,
  );
}

export const buildCommand = defineCommand({
  name: "npm run build -w devkit --",
  summary: "bundles the devkit (the partner-api command and startSandbox) into devkit/dist/ for plain node",
  usage: "Usage: npm run build -w devkit",
  options: {},
  async run({ io }) {
    const manifest = JSON.parse(await readFile(path.join(devkitRoot, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
    };
    await rm(distDir, { recursive: true, force: true });
    await mkdir(distDir, { recursive: true });
    const entries: Entry[] = [];
    for (const entry of ENTRIES) {
      if (await exists(path.join(devkitRoot, entry.source))) entries.push(entry);
      else io.err(`  skipped dist/${entry.name}.js: ${entry.source} does not exist yet`);
    }
    const imported = await bundleDevkit(distDir, io, entries);
    const undeclared = [...imported].filter((name) => !(name in (manifest.dependencies ?? {})));
    if (undeclared.length > 0) {
      throw new JobFailure(
        `the bundles import ${undeclared.join(", ")}, not dependencies of partner-api-devkit (devkit/package.json)`,
      );
    }
    if (entries.some((entry) => entry.name === "sandbox")) {
      await step(io, "declarations for partner-api-devkit/sandbox", () => declarations());
    }
    const { files, bytes } = await directorySize(distDir);
    return `built devkit/dist/: ${files} files, ${(bytes / 1024).toFixed(1)} KiB, importing ${[...imported].join(", ") || "no packages"}`;
  },
});

/**
 * tsc writes the declarations of src/sandbox/index.ts and what it reaches (the client's types among them) under
 * dist/types/; dist/sandbox.d.ts re-exports them, so `partner-api-devkit/sandbox` is typed without the repo.
 */
async function declarations(): Promise<void> {
  const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc");
  const config = path.join(distDir, "tsconfig.types.json");
  await writeFile(
    config,
    JSON.stringify({
      extends: path.join(repoRoot, "tsconfig.json"),
      compilerOptions: {
        noEmit: false,
        declaration: true,
        emitDeclarationOnly: true,
        rootDir: repoRoot,
        outDir: path.join(distDir, "types"),
      },
      include: [],
      files: [path.join(devkitRoot, "src", "sandbox", "index.ts"), path.join(repoRoot, "generated", "schema.d.ts")],
    }),
  );
  const result = spawnSync(process.execPath, [tsc, "-p", config], { cwd: repoRoot, encoding: "utf8" });
  await rm(config);
  if (result.status !== 0) throw new JobFailure(`tsc (declarations) failed:\n${result.stdout}${result.stderr}`);
  // tsc does not copy declaration files it was given; the emitted ones import these two.
  await mkdir(path.join(distDir, "types", "generated"), { recursive: true });
  for (const file of ["schema.d.ts", "sandbox.d.ts"]) {
    await copyFile(path.join(repoRoot, "generated", file), path.join(distDir, "types", "generated", file));
  }
  await writeFile(path.join(distDir, "sandbox.d.ts"), 'export * from "./types/devkit/src/sandbox/index.js";\n');
}

if (isEntryPoint(import.meta.url)) await main(buildCommand);
