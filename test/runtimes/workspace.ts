/**
 * What the runtimes run, made once per run in a scratch folder outside the repository: the client package as
 * `npm pack` ships it (compiled by tsc with tsconfig.build.json, the declarations and contracts beside it) installed
 * in a partner's app with its one dependency, the scenario as a JavaScript module there, and the two bundles a
 * partner's bundler would make of it: a Worker (the `workerd` condition, as wrangler resolves) and a browser page
 * (esbuild `--platform=browser`).
 */
import { execFile } from "node:child_process";
import { copyFile, cp, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { build, transform } from "esbuild";
import { repoRoot } from "../../scripts/lib/paths.ts";

const run = promisify(execFile);
const here = path.join(repoRoot, "test", "runtimes");

/** What `npm pack` puts in the client's tarball, made from the repository at `root` into `packageDir`. */
export async function buildClientPackage(packageDir: string, root: string = repoRoot): Promise<void> {
  const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
  try {
    await run(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", path.join(packageDir, "dist")], {
      cwd: root,
      encoding: "utf8",
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`the client does not build (tsc -p tsconfig.build.json):\n${stdout ?? ""}${stderr ?? ""}`);
  }
  await mkdir(path.join(packageDir, "generated"), { recursive: true });
  for (const [from, to] of [
    ["generated/schema.d.ts", "dist/generated/schema.d.ts"],
    ["generated/openapi.json", "generated/openapi.json"],
    ["generated/openapi.yaml", "generated/openapi.yaml"],
    ["package.json", "package.json"],
  ] as const)
    await copyFile(path.join(root, from), path.join(packageDir, to));
}

/**
 * Installs the built client and its one dependency into `app`: openapi-fetch and what it depends on (its types'
 * helpers), copied from the repository's node_modules as npm would lay them out.
 */
export async function makeApp(app: string, root: string = repoRoot): Promise<string> {
  const modules = path.join(app, "node_modules");
  const packageDir = path.join(modules, "partner-api-client");
  await mkdir(packageDir, { recursive: true });
  await writeFile(
    path.join(app, "package.json"),
    `${JSON.stringify({ name: "partner-app", private: true, type: "module" }, null, 2)}\n`,
  );
  await buildClientPackage(packageDir, root);
  const fetchManifest = JSON.parse(
    await readFile(path.join(root, "node_modules", "openapi-fetch", "package.json"), "utf8"),
  ) as { dependencies?: Record<string, string> };
  for (const name of ["openapi-fetch", ...Object.keys(fetchManifest.dependencies ?? {})])
    await cp(path.join(root, "node_modules", name), path.join(modules, name), { recursive: true, dereference: true });
  return packageDir;
}

export interface Workspace {
  app: string;
  /** The scenario module (scenario.mjs in the app), importing `partner-api-client` by name. */
  scenario: string;
  /** The Worker, one ES module bundle. */
  worker: string;
  /** The page's script: the scenario bundled for a browser, exposing `partnerRuntime.runScenario`. */
  browser: string;
}

/** Prepares the app in `dir`: the package, the scenario module, the Worker and browser bundles. */
export async function makeWorkspace(dir: string, root: string = repoRoot): Promise<Workspace> {
  const app = path.join(dir, "app");
  await makeApp(app, root);
  // The scenario and the Worker sit in the app, so `partner-api-client` resolves to the installed package.
  for (const file of ["scenario.ts", "worker.ts"]) await copyFile(path.join(here, file), path.join(app, file));
  const source = await readFile(path.join(app, "scenario.ts"), "utf8");
  const { code } = await transform(source, { loader: "ts", format: "esm", target: "es2022" });
  const scenario = path.join(app, "scenario.mjs");
  await writeFile(scenario, code);
  const bundle = async (entry: string, options: Parameters<typeof build>[0]) => {
    const result = await build({
      entryPoints: [path.join(app, entry)],
      absWorkingDir: app,
      bundle: true,
      write: false,
      logLevel: "silent",
      target: "es2022",
      ...options,
    });
    return result.outputFiles![0]!.text;
  };
  const worker = await bundle("worker.ts", {
    format: "esm",
    platform: "neutral",
    // What wrangler asks for; a `node:` import stays an import, so workerd itself says whether it has the module.
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    external: ["node:*"],
  });
  const browser = await bundle("scenario.ts", { format: "iife", globalName: "partnerRuntime", platform: "browser" });
  return { app, scenario, worker, browser };
}
