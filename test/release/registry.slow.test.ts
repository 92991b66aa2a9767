/**
 * The packages as the release workflow publishes them, proven against a real npm registry: a local Verdaccio
 * (pinned devDependency) on loopback, both packages packed by their `prepack` builds, checked with publint and
 * arethetypeswrong, published there, then installed in a fresh project whose only registry is that one. Our two
 * packages exist there alone (no uplink for `partner-api-*`); their dependencies pass through Verdaccio's proxy.
 * The project type-checks strictly (`skipLibCheck: false`, TypeScript 7) and calls the sandbox started from the
 * installed `partner-api` bin with the installed client.
 */
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findFreePort } from "../../devkit/src/prism.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { packPackages } from "../helpers/build-lock.ts";
import { type Served, watchServed } from "../helpers/served.ts";
import { strictTypeCheck } from "../helpers/strict-tsconfig.ts";

const run = promisify(execFile);
const bin = (name: string) => path.join(repoRoot, "node_modules", ".bin", name);

/** A nested npm's environment: none of an enclosing `npm test`'s npm_* variables (its registry included). */
const cleanEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) || /^npm_config_cache$/i.test(key)),
);

async function exec(command: string, args: string[], cwd: string, timeout = 240_000): Promise<string> {
  try {
    const { stdout } = await run(command, args, { cwd, env: cleanEnv, encoding: "utf8", timeout });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed:\n${stdout ?? ""}${stderr ?? ""}`);
  }
}

interface Manifest {
  name: string;
  version: string;
  exports: Record<string, unknown>;
}
const manifest = (file: string) => JSON.parse(readFileSync(path.join(repoRoot, file), "utf8")) as Manifest;

/** The entry points that are files, not modules (the contract, package.json): arethetypeswrong skips them by name. */
export function assetEntryPoints(exports: Record<string, unknown>): string[] {
  return Object.entries(exports)
    .filter(([, target]) => typeof target === "string" && !/\.(m?js|d\.ts)$/.test(target))
    .map(([entry]) => entry);
}

/**
 * Verdaccio's uplink trusts the certificate authorities the operating system trusts, as npm (its `cafile`), curl and
 * git on such a machine do: behind a TLS-inspecting proxy, node's own list alone refuses registry.npmjs.org.
 */
const verdaccioEnv = { ...cleanEnv, NODE_OPTIONS: `${cleanEnv.NODE_OPTIONS ?? ""} --use-system-ca`.trim() };

const servers: Served[] = [];
function serve(command: string, args: string[], cwd: string, what: string, env = cleanEnv): Served {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const served = watchServed(child, what, () => process.kill(-child.pid!, "SIGINT"));
  servers.push(served);
  return served;
}

/** The scratch folders, the local registry and the packs: set up once by the describe's beforeAll. */
let work: string;
let app: string;
let registry: string;
let npmrc: string;
const tarballs: Record<string, string> = {};
const client = manifest("package.json");
const devkit = manifest("devkit/package.json");

/** publint and arethetypeswrong on both packages. */
function packageChecks(): void {
  test("both packages pass publint --strict", async () => {
    for (const tarball of Object.values(tarballs)) {
      const output = await exec(bin("publint"), ["run", tarball, "--strict", "--level", "warning"], work);
      expect(output, tarball).toMatch(/All good!/);
    }
  }, 60_000);

  test("both packages pass arethetypeswrong --profile esm-only, their asset entry points excluded by name", async () => {
    expect(assetEntryPoints(client.exports)).toEqual(["./openapi.json", "./openapi.yaml", "./package.json"]);
    for (const [name, tarball] of Object.entries(tarballs)) {
      const exports = name === client.name ? client.exports : devkit.exports;
      const assets = assetEntryPoints(exports);
      const args = [tarball, "--profile", "esm-only", "--format", "ascii", "--no-color", "--no-emoji"];
      // attw exits 1 on any problem the profile counts (exec throws with its report).
      const output = await exec(
        bin("attw"),
        assets.length ? [...args, "--exclude-entrypoints", ...assets] : args,
        work,
      );
      const modules = Object.keys(exports).filter((entry) => !assets.includes(entry));
      for (const entry of modules) expect(output, name).toContain(`"${path.posix.join(name, entry)}"`);
      for (const entry of assets) expect(output, name).not.toContain(`"${path.posix.join(name, entry)}"`);
    }
  }, 90_000);
}

/** Published, installed from the registry alone, type-checked and run. */
function fromTheRegistry(): void {
  describe("published, installed from the registry, type-checked and run", () => {
    let sandbox: Served;

    beforeAll(async () => {
      for (const tarball of [tarballs[client.name]!, tarballs[devkit.name]!])
        await exec("npm", ["publish", tarball, "--userconfig", npmrc, "--registry", registry], work);
      app = path.join(work, "partner-app");
      mkdirSync(app);
      writeFileSync(
        path.join(app, "package.json"),
        JSON.stringify({ name: "partner-app", private: true, type: "module" }),
      );
      // The project's own npmrc names the local registry alone.
      writeFileSync(path.join(app, ".npmrc"), `registry=${registry}\n`);
      const common = ["--no-audit", "--no-fund", "--registry", registry, "--userconfig", npmrc];
      await exec("npm", ["install", "--save-exact", ...common, `${client.name}@${client.version}`], app);
      await exec("npm", ["install", "--save-dev", "--save-exact", ...common, `${devkit.name}@${devkit.version}`], app);
    }, 600_000);

    test("the registry serves both versions, and the project's lock resolves them from it", async () => {
      for (const { name, version } of [client, devkit]) {
        const packument = (await (await fetch(`${registry}${name}`)).json()) as { versions: Record<string, unknown> };
        expect(Object.keys(packument.versions), name).toEqual([version]);
      }
      const lock = JSON.parse(readFileSync(path.join(app, "package-lock.json"), "utf8")) as {
        packages: Record<string, { version?: string; resolved?: string }>;
      };
      for (const { name, version } of [client, devkit]) {
        const entry = lock.packages[`node_modules/${name}`];
        expect(entry?.version).toBe(version);
        expect(entry?.resolved).toBe(`${registry}${name}/-/${name}-${version}.tgz`);
      }
      // Every package came through this registry, none from anywhere else.
      const elsewhere = Object.entries(lock.packages).filter(
        ([key, entry]) => key !== "" && entry.resolved !== undefined && !entry.resolved.startsWith(registry),
      );
      expect(elsewhere).toEqual([]);
    });

    test("a program using the installed client compiles under strict without skipLibCheck (TypeScript 7), and calls the sandbox from the installed bin", async () => {
      writeFileSync(path.join(app, "call.ts"), CALL_PROGRAM);
      const packages = ["partner-api-client", "partner-api-devkit"];
      // TypeScript 7 here; the same declarations meet TypeScript 5.9 in test/devkit/installed.slow.test.ts (the
      // packs are the same: test/helpers/build-lock.ts) and test/consumer/typescript.slow.test.ts.
      const check = () => strictTypeCheck(app, ["call.ts"], packages, { allowImportingTsExtensions: true }, "7");
      expect(await check()).toBe("");
      // A wrong use must fail the same check.
      writeFileSync(path.join(app, "call.ts"), CALL_PROGRAM.replace('"/v1/companies"', '"/v1/no-such-path"'));
      expect(await check()).toMatch(/call\.ts\(\d+,\d+\): error TS/);
      writeFileSync(path.join(app, "call.ts"), CALL_PROGRAM);

      sandbox = serve(
        path.join(app, "node_modules", ".bin", "partner-api"),
        ["sandbox", "--port", "0", "--seed", "3"],
        app,
        "partner-api sandbox",
      );
      const [, url] = await sandbox.waitFor(/Sandbox serving the partner API on (\S+) /);
      const stripTypes = Number(process.versions.node.split(".")[0]) < 23 ? ["--experimental-strip-types"] : [];
      const { stdout } = await run(process.execPath, [...stripTypes, "call.ts"], {
        cwd: app,
        env: { ...cleanEnv, PARTNER_API_BASE_URL: url!, PARTNER_API_KEY: "registry-test-key" },
        encoding: "utf8",
        timeout: 30_000,
      });
      const answer = JSON.parse(stdout.trim()) as { status: number; companies: number };
      expect(answer.status).toBe(200);
      expect(answer.companies).toBeGreaterThan(0);
      expect(await sandbox.interrupt()).toMatch(/✓ sandbox stopped/);
    }, 120_000);
  });
}

describe("published to a local registry and installed from it alone", () => {
  beforeAll(async () => {
    const started = performance.now();
    work = mkdtempSync(path.join(os.tmpdir(), "partner-api-registry-"));
    const port = await findFreePort();
    registry = `http://127.0.0.1:${port}/`;
    writeFileSync(
      path.join(work, "verdaccio.yaml"),
      [
        `storage: ${path.join(work, "storage")}`,
        "auth:",
        "  htpasswd:",
        `    file: ${path.join(work, "htpasswd")}`,
        "uplinks:",
        "  npmjs:",
        `    url: ${process.env.PARTNER_API_UPLINK ?? "https://registry.npmjs.org/"}`,
        // Verdaccio's defaults (30 s, 2 failures, then 5 min offline) turn two slow fetches on a loaded machine
        // into "no such package available" for every dependency after them.
        "    timeout: 120s",
        "    max_fails: 20",
        "    fail_timeout: 2s",
        "packages:",
        // Ours exist only here: published by the test, never looked up elsewhere.
        "  'partner-api-*':",
        "    access: $all",
        "    publish: $authenticated",
        "  '**':",
        "    access: $all",
        "    publish: $authenticated",
        "    proxy: npmjs",
        // Tokens signed (JWT), as Verdaccio recommends: a legacy token made every request of an install check the
        // password again with bcrypt, in JavaScript (27 of Verdaccio's 37 CPU-s in this file).
        "security:",
        "  api:",
        "    jwt:",
        "      sign:",
        "        expiresIn: 1h",
        "log: { type: stdout, format: pretty, level: warn }",
        "",
      ].join("\n"),
    );
    const verdaccio = serve(
      bin("verdaccio"),
      ["--config", path.join(work, "verdaccio.yaml"), "--listen", `127.0.0.1:${port}`],
      work,
      "verdaccio",
      verdaccioEnv,
    );
    // Both packs (each builds with its prepack, under the dist/ lock) while the registry starts.
    const [packed] = await Promise.all([
      packPackages(work, (args, cwd) => exec("npm", args, cwd)),
      waitForRegistry(registry, verdaccio),
    ]);
    tarballs[client.name] = path.join(work, packed.client.filename);
    tarballs[devkit.name] = path.join(work, packed.devkit.filename);
    // A user for publishing, as `npm adduser` makes one: the token goes to this run's own npmrc.
    const user = await fetch(`${registry}-/user/org.couchdb.user:release-test`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "release-test", password: "release-test-password", type: "user" }),
    });
    expect(user.status, await user.clone().text()).toBe(201);
    const { token } = (await user.json()) as { token: string };
    npmrc = path.join(work, ".npmrc");
    writeFileSync(npmrc, `registry=${registry}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
    console.info(`packed both, registry up in ${Math.round(performance.now() - started)} ms`);
  }, 420_000);

  afterAll(async () => {
    for (const served of servers)
      if (served.child.exitCode === null && served.child.signalCode === null)
        try {
          process.kill(-served.child.pid!, "SIGKILL");
        } catch {
          // already gone
        }
    if (work) await rm(work, { recursive: true, force: true });
  });

  packageChecks();
  fromTheRegistry();
});

async function waitForRegistry(url: string, verdaccio: Served): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`${url}-/ping`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) return;
    if (verdaccio.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`Verdaccio did not answer on ${url}:\n${verdaccio.output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const CALL_PROGRAM = `import { createPartnerClient } from "partner-api-client";
import type { components } from "partner-api-client/types";

const client = createPartnerClient({
  apiKey: process.env.PARTNER_API_KEY!,
  baseUrl: process.env.PARTNER_API_BASE_URL!,
});
const { data, response } = await client.GET("/v1/companies");
const companies: components["schemas"]["Company"][] = data?.companies ?? [];
console.log(JSON.stringify({ status: response.status, companies: companies.length }));
`;
