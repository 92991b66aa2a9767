/**
 * `npm run build -w devkit` (and the devkit's prepack): bundles devkit/src with esbuild into dist/ so the
 * published package runs on plain `node`, with no TypeScript loader and no access to this repository:
 *   dist/cli.js      the `partner-api` executable
 *   dist/cli-kit.js  the commands and their runner for `import … from "partner-api-devkit/cli"`, with dist/cli-kit.d.ts
 *   dist/sandbox.js  `startSandbox()` for `import … from "partner-api-devkit/sandbox"`, with dist/sandbox.d.ts
 *   dist/msw.js      `createSandboxHandlers()` for `import … from "partner-api-devkit/msw"` in Node, with dist/msw.d.ts
 *   dist/msw.browser.js  the same for a browser (the export's `browser` condition): no Node module in it, its npm
 *                    packages bundled in but MSW and the client (the partner's own copies)
 *   dist/chunks/     the code those three share
 *   dist/*.json      the bundled contracts the tools serve (copied from generated/)
 *   dist/workflows/  the Arazzo documents of openapi/workflows/ (the sandbox's shipped scenarios, the control CLI's
 *                    triggers), their sources pointed at the contracts beside them, so `redocly respect` runs them
 *   dist/dashboard/  the sandbox dashboard's page (src/dashboard/page/) and Scalar's bundle for its console
 * Only devkit/src is bundled. npm packages stay imports, and every one of them must be a declared dependency or
 * peer dependency of the devkit: the client (`partner-api-client`, for webhook signing and the receiver kit) is
 * the partner's installed copy, never a copy inside dist/.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, cp, mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { directorySize } from "../src/cli/files.ts";
import { type CliIO, defineCommand, isEntryPoint, JobFailure, main, step } from "../src/cli/runner.ts";
import { openapiFetchModulePath, pageDir, scalarBundlePath } from "../src/dashboard/index.ts";

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
  { name: "cli-kit", source: "src/cli/kit.ts", executable: false },
  { name: "sandbox", source: "src/sandbox/index.ts", executable: false },
  { name: "msw", source: "src/msw/index.ts", executable: false },
];

/** The entries with declarations: dist/<name>.d.ts re-exports what tsc writes for the source under dist/types/. */
const TYPED_ENTRIES = ["cli-kit", "sandbox", "msw"];

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

export interface Bundled {
  /** The npm packages the bundles import. */
  imported: Set<string>;
  /** The source files bundled in, relative to the repository root (`devkit/src/…`). */
  inputs: Set<string>;
}

/**
 * Bundles the entries into `outDir` in one esbuild run (code they share goes into dist/chunks/, so the entries
 * share module instances and the tarball holds each module once) and copies the contracts beside them; returns
 * the npm packages the bundles import and the files they hold. `outDir` must be a `dist/` folder under a
 * package.json (the built code finds its files from there).
 */
export async function bundleDevkit(outDir: string, io: CliIO, entries: readonly Entry[] = ENTRIES): Promise<Bundled> {
  const names = entries.map((entry) => `${path.basename(outDir)}/${entry.name}.js`).join(", ");
  const result = await step(io, `bundle ${names}`, () =>
    build({
      absWorkingDir: devkitRoot,
      entryPoints: Object.fromEntries(entries.map((entry) => [entry.name, entry.source])),
      outdir: outDir,
      bundle: true,
      splitting: true,
      chunkNames: "chunks/[name]-[hash]",
      platform: "node",
      format: "esm",
      target: "node22",
      packages: "external",
      metafile: true,
      legalComments: "none",
      logLevel: "error",
    }),
  );
  for (const entry of entries.filter((e) => e.executable)) {
    const file = path.join(outDir, `${entry.name}.js`);
    await writeFile(file, `#!/usr/bin/env node\n${await readFile(file, "utf8")}`);
  }
  const inputs = new Set(
    Object.keys(result.metafile!.inputs).map((input) =>
      path.relative(repoRoot, path.resolve(devkitRoot, input)).split(path.sep).join("/"),
    ),
  );
  await step(io, "copy the workflows of openapi/workflows/ to workflows/", () =>
    copyWorkflows(path.join(outDir, "workflows")),
  );
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
  return { imported: new Set(packagesImported(result.metafile!)), inputs };
}

/**
 * The modules that need Node, each with its browser stand-in beside it (`x.browser.ts` for `x.ts`): what finds and
 * reads files, and what checks receivers by Node's address and name lookups. Everything else the msw entry reaches
 * runs in a browser as it is; a Node module left in the bundle
 * fails the build.
 */
const BROWSER_STAND_INS = [
  "src/paths.ts",
  "src/common/data-file.ts",
  "src/sandbox/receivers.ts",
  "src/sandbox/receiver-agent.ts",
];

/** The packages the browser bundle leaves to the partner's bundler: their own MSW and client. */
export const BROWSER_EXTERNAL = ["msw", "partner-api-client"];

/** Bundles `source` for a browser into `outFile` (ESM); returns the bundle's bytes. */
export async function bundleForBrowser(source: string, outFile: string, minify = false): Promise<Metafile> {
  const standIns = new Map(
    BROWSER_STAND_INS.map((file) => [
      path.join(devkitRoot, file),
      path.join(devkitRoot, file.replace(/\.ts$/, ".browser.ts")),
    ]),
  );
  const result = await build({
    absWorkingDir: devkitRoot,
    entryPoints: [source],
    outfile: outFile,
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    conditions: ["partner-api-source"],
    external: BROWSER_EXTERNAL,
    minify,
    metafile: true,
    legalComments: "none",
    logLevel: "error",
    plugins: [
      {
        name: "node-edges",
        setup(build) {
          // The few Node modules that stay behind the stand-ins' callers: calls that throw in a browser.
          build.onResolve({ filter: /^node:(fs|fs\/promises|path)$/ }, () => ({
            path: path.join(devkitRoot, "src/node-stand-in.browser.ts"),
          }));
          build.onResolve({ filter: /\.ts$/ }, (args) => {
            const resolved = path.resolve(args.resolveDir, args.path);
            const standIn = standIns.get(resolved);
            return standIn ? { path: standIn } : undefined;
          });
        },
      },
    ],
  });
  return result.metafile!;
}

/** Where a shipped workflow's OpenAPI sources are in the package: the contracts dist/ carries, beside workflows/. */
const PACKAGED_SOURCES: Readonly<Record<string, string>> = {
  "../openapi.yaml": "../openapi.json",
  "../sandbox/openapi.yaml": "../sandbox.json",
};

/** Copies each openapi/workflows/*.arazzo.yaml with its OpenAPI sources pointed at the packaged contracts. */
async function copyWorkflows(target: string): Promise<void> {
  const source = path.join(repoRoot, "openapi", "workflows");
  await mkdir(target, { recursive: true });
  for (const file of (await readdir(source)).filter((name) => name.endsWith(".arazzo.yaml"))) {
    const document = parseYaml(await readFile(path.join(source, file), "utf8")) as {
      sourceDescriptions: { name: string; url: string; type?: string }[];
    };
    for (const description of document.sourceDescriptions) {
      if (description.type === "arazzo") continue;
      const packaged = PACKAGED_SOURCES[description.url];
      if (!packaged)
        throw new JobFailure(
          `openapi/workflows/${file}: source ${description.name} is ${description.url}; the package carries ${Object.keys(PACKAGED_SOURCES).join(" and ")} only`,
        );
      description.url = packaged;
    }
    await writeFile(path.join(target, file), stringifyYaml(document, { lineWidth: 0 }));
  }
}

/**
 * The sandbox dashboard's files: the page (devkit/src/dashboard/page/, served as they are) and, for its
 * console, the one browser file of @scalar/api-reference (a dev dependency: the package ships this file, not
 * Scalar's 260 packages), with a note of its version and licence beside it.
 */
async function copyDashboard(target: string): Promise<void> {
  // The page's files, its type declarations left out (they serve the type check here, not the browser).
  await cp(pageDir, target, { recursive: true, filter: (file) => !file.endsWith(".d.ts") });
  await copyFile(openapiFetchModulePath(), path.join(target, "openapi-fetch.js"));
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
      peerDependencies?: Record<string, string>;
    };
    await rm(distDir, { recursive: true, force: true });
    await mkdir(distDir, { recursive: true });
    const entries: Entry[] = [];
    for (const entry of ENTRIES) {
      if (await exists(path.join(devkitRoot, entry.source))) entries.push(entry);
      else io.err(`  skipped dist/${entry.name}.js: ${entry.source} does not exist yet`);
    }
    const { imported } = await bundleDevkit(distDir, io, entries);
    if (entries.some((entry) => entry.name === "msw"))
      await step(io, "bundle dist/msw.browser.js (for a browser: no Node module)", () =>
        bundleForBrowser("src/msw/index.ts", path.join(distDir, "msw.browser.js")),
      );
    const declared = { ...manifest.dependencies, ...manifest.peerDependencies };
    const undeclared = [...imported].filter((name) => !Object.hasOwn(declared, name));
    if (undeclared.length > 0) {
      throw new JobFailure(
        `the bundles import ${undeclared.join(", ")}, not dependencies of partner-api-devkit (devkit/package.json)`,
      );
    }
    const typed = entries.filter((entry) => TYPED_ENTRIES.includes(entry.name));
    if (typed.length > 0) {
      await step(io, `declarations for ${typed.map((entry) => `dist/${entry.name}.d.ts`).join(", ")}`, () =>
        declarations(typed),
      );
    }
    const { files, bytes } = await directorySize(distDir);
    return `built devkit/dist/: ${files} files, ${(bytes / 1024).toFixed(1)} KiB, importing ${[...imported].join(", ") || "no packages"}`;
  },
});

/**
 * tsc writes the declarations of the typed entries and what they reach in devkit/src under dist/types/; each
 * dist/<entry>.d.ts re-exports its entry's, so `partner-api-devkit/cli` and `partner-api-devkit/sandbox` are typed
 * without the repository. The client's types stay imports of `partner-api-client`, the peer dependency.
 */
async function declarations(entries: readonly Entry[]): Promise<void> {
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
      files: entries.map((entry) => path.join(devkitRoot, entry.source)),
    }),
  );
  const result = spawnSync(process.execPath, [tsc, "-p", config], { cwd: repoRoot, encoding: "utf8" });
  await rm(config);
  if (result.status !== 0) throw new JobFailure(`tsc (declarations) failed:\n${result.stdout}${result.stderr}`);
  // tsc does not copy the declaration files the emitted ones import: the generated types of the control contract
  // (devkit/generated/sandbox.d.ts) and of the partner API (generated/schema.d.ts, which tsc reaches through the
  // client's source and writes inline). Each one referred to is shipped beside them, at the place its import names,
  // so a strict consumer without `skipLibCheck` resolves every type rather than meeting a missing module (and `any`
  // where it was).
  const types = path.join(distDir, "types");
  for (const file of await declarationsImportedButMissing(types)) {
    const source = path.join(repoRoot, path.relative(types, file));
    if (!existsSync(source))
      throw new JobFailure(`the declarations import ${path.relative(types, file)}, which the repository lacks`);
    await mkdir(path.dirname(file), { recursive: true });
    await copyFile(source, file);
  }
  for (const entry of entries) {
    const emitted = `./types/devkit/${entry.source.replace(/\.ts$/, ".js")}`;
    await writeFile(path.join(distDir, `${entry.name}.d.ts`), `export * from "${emitted}";\n`);
  }
}

/** The declaration files (`….d.ts`) the declarations under `folder` import relatively (as `….js`) but tsc did not emit. */
async function declarationsImportedButMissing(folder: string): Promise<Set<string>> {
  const missing = new Set<string>();
  for (const file of await readdir(folder, { recursive: true })) {
    if (!file.endsWith(".d.ts")) continue;
    const text = await readFile(path.join(folder, file), "utf8");
    for (const [, specifier] of text.matchAll(/["'](\.\.?\/[^"']+)\.js["']/g)) {
      const target = path.resolve(folder, path.dirname(file), `${specifier}.d.ts`);
      if (!existsSync(target)) missing.add(target);
    }
  }
  return missing;
}

if (isEntryPoint(import.meta.url)) await main(buildCommand);
