/**
 * The SDKs a partner could generate from our contract instead of using this client, for the client benchmark
 * (client.ts): @hey-api/openapi-ts's SDK and orval's fetch client, generated at bench time into a scratch folder
 * (cached there by the contract's hash and the generators' versions).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";

/** Where the generated SDKs send: never reached, the stub `fetch` answers. */
export const BASE_URL = "http://127.0.0.1:9/bench";

export interface HeyApiSdk {
  version: string;
  createClient(config: unknown): unknown;
  createConfig(config: Record<string, unknown>): unknown;
  listCards(options: Record<string, unknown>): Promise<{ data?: unknown; error?: unknown }>;
  createCard(options: Record<string, unknown>): Promise<{ data?: unknown; error?: unknown }>;
}

export interface OrvalSdk {
  version: string;
  listCards(params: Record<string, unknown>, init: RequestInit): Promise<{ data: unknown; status: number }>;
  createCard(body: unknown, init: RequestInit): Promise<{ data: unknown; status: number }>;
}

/** The SDKs a partner could generate from our contract instead of using this client. */
/** The generated SDKs' three entry points, bundled into one ES module in their folder (`heyClient`, `heySdk`, `orval`). */
export const SDKS_BUNDLE = "sdks.mjs";

export interface GeneratedSdks {
  heyApi: HeyApiSdk;
  orval: OrvalSdk;
  /** Where they were generated, and whether this run generated them or found them there. */
  dir: string;
  generated: boolean;
}

function versionOf(repoRoot: string, name: string): string {
  const file = path.join(repoRoot, "node_modules", name, "package.json");
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}

// Run in a child process: both generators print banners and warnings to the console.
const GENERATE_SCRIPT = `
const [spec, dir, baseUrl] = process.argv.slice(1);
const { createClient } = await import("@hey-api/openapi-ts");
await createClient({
  input: spec,
  output: { path: dir + "/hey-api" },
  plugins: ["@hey-api/typescript", "@hey-api/client-fetch", "@hey-api/sdk"],
  logs: { level: "silent" },
});
const { generate } = await import("orval");
await generate(
  { input: { target: spec }, output: { target: dir + "/orval/api.ts", client: "fetch", mode: "single", baseUrl, prettier: false } },
  dir,
);
`;

/**
 * Generates the hey-api SDK and orval's fetch client from generated/openapi.json into a scratch folder under
 * the system's temporary folder, named by a hash of the contract and the generators' versions, so a later run
 * on the same contract reuses them. Never inside the repository.
 */
export async function generateSdks(repoRoot: string, progress: (message: string) => void): Promise<GeneratedSdks> {
  const spec = path.join(repoRoot, "generated", "openapi.json");
  const heyVersion = versionOf(repoRoot, "@hey-api/openapi-ts");
  const orvalVersion = versionOf(repoRoot, "orval");
  const hash = createHash("sha256")
    .update(readFileSync(spec))
    .update(`${heyVersion} ${orvalVersion} ${BASE_URL}`)
    .digest("hex")
    .slice(0, 16);
  const dir = path.join(os.tmpdir(), `partner-bench-sdks-${hash}`);
  const done = path.join(dir, "generated.txt");
  const generated = !existsSync(done);
  if (generated) {
    progress(`client: generating the @hey-api/openapi-ts ${heyVersion} SDK and the orval ${orvalVersion} fetch client`);
    await rm(dir, { recursive: true, force: true });
    await promisify(execFile)(
      process.execPath,
      ["--input-type=module", "--eval", GENERATE_SCRIPT, spec, dir, BASE_URL],
      { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: Error & { stderr?: string }) => {
      throw new Error(`client benchmark: generating the SDKs failed: ${error.stderr?.trim() || error.message}`);
    });
    writeFileSync(done, `@hey-api/openapi-ts ${heyVersion}, orval ${orvalVersion}\n`);
  }
  // The generated TypeScript imports its siblings as `.js`, which node's type stripping does not map to `.ts`: the
  // three entry points are bundled into one ES module beside them (kept with the SDKs), and that is what loads.
  const bundled = path.join(dir, SDKS_BUNDLE);
  if (generated || !existsSync(bundled)) {
    const entry = (relative: string) => JSON.stringify(path.join(dir, relative));
    await build({
      stdin: {
        contents: [
          `export * as heyClient from ${entry("hey-api/client/index.ts")};`,
          `export * as heySdk from ${entry("hey-api/sdk.gen.ts")};`,
          `export * as orval from ${entry("orval/api.ts")};`,
        ].join("\n"),
        resolveDir: dir,
        loader: "ts",
        sourcefile: "sdks-entry.ts",
      },
      outfile: bundled,
      bundle: true,
      platform: "neutral",
      format: "esm",
      target: "es2022",
      logLevel: "error",
    });
  }
  const { heyClient, heySdk, orval } = (await import(pathToFileURL(bundled).href)) as Record<string, object>;
  return {
    heyApi: { version: heyVersion, ...heyClient, ...heySdk } as HeyApiSdk,
    orval: { version: orvalVersion, ...orval } as OrvalSdk,
    dir,
    generated,
  };
}
