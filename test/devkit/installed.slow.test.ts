/**
 * What a partner installs, as a partner installs it: `npm pack` the client (repo root) and the devkit
 * (`-w devkit`), then a fresh project outside this repository installs both tarballs (the client as a
 * dependency, the devkit, whose peer dependency the client is, as a dev dependency) and runs `npx partner-api …`
 * there with plain node: the mock answers, the sandbox answers and fires a webhook, `webhooks trigger` delivers to
 * `webhooks listen` and keeps the retry schedule at --speed. One install serves every test; npm's own cache is
 * shared.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findFreePort } from "../../devkit/src/prism.ts";
import { documentedSnippets, MSW_EXAMPLES } from "../../scripts/lib/docs/snippets.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { type Receiver, startReceiver } from "../../scripts/lib/receiver.ts";
import { typecheckModules } from "../../scripts/lib/typecheck.ts";
import { verifyWebhookSignature } from "../../src/webhooks/index.ts";
import { loadDocument } from "../contract/support/contract.ts";
import { type Packed, packPackages } from "../helpers/build-lock.ts";
import { type Served, watchServed } from "../helpers/served.ts";
import { strictTypeCheck } from "../helpers/strict-tsconfig.ts";

const run = promisify(execFile);
const SECRET = "whsec_installed_test";
const KEY = "installed-test-key";

/** The environment for a nested npm: without the npm_* variables of an enclosing `npm test`. */
const npmEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) || /^npm_config_(cache|registry)$/i.test(key)),
);

async function npm(args: string[], cwd: string): Promise<string> {
  try {
    const { stdout } = await run("npm", args, { cwd, env: npmEnv, encoding: "utf8", timeout: 120_000 });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(" ")} failed:\n${stdout ?? ""}${stderr ?? ""}`);
  }
}

interface Done {
  code: number | null;
  stdout: string;
  stderr: string;
}

let app: string;

/**
 * `npx partner-api …` in the partner's project, to the end. `direct` runs the same installed bin
 * (node_modules/.bin/partner-api) without npx's own start-up, where npx itself is not under test.
 */
async function npx(args: string[], { direct = false, timeout = 30_000 } = {}): Promise<Done> {
  const [command, prefix] = direct
    ? [path.join(app, "node_modules", ".bin", "partner-api"), []]
    : ["npx", ["partner-api"]];
  try {
    const { stdout, stderr } = await run(command, [...prefix, ...args], { cwd: app, env: npmEnv, timeout });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof code === "number" ? code : null, stdout: stdout ?? "", stderr: stderr ?? "" };
  }
}

const serving: Served[] = [];

/** A long-running `npx partner-api …` (a server), in its own process group like a terminal's foreground job. */
function serve(args: string[], { direct = false } = {}): Served {
  const [command, prefix] = direct
    ? [path.join(app, "node_modules", ".bin", "partner-api"), []]
    : ["npx", ["partner-api"]];
  const child = spawn(command, [...prefix, ...args], {
    cwd: app,
    env: npmEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const served = watchServed(child, `partner-api ${args.join(" ")}`, () => process.kill(-child.pid!, "SIGINT"));
  serving.push(served);
  return served;
}

const receivers: Receiver[] = [];
const track = (receiver: Receiver): Receiver => {
  receivers.push(receiver);
  return receiver;
};

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** The scratch folder and the devkit pack, set up once by the describe's beforeAll. */
let work: string;
let devkitPacked: Packed;

const devkitVersion = (
  JSON.parse(readFileSync(path.join(repoRoot, "devkit", "package.json"), "utf8")) as { version: string }
).version;

/** What the packs hold and what a partner's install pulls in. */
function packedContents(): void {
  test("the app's production dependencies are the client and openapi-fetch's own, nothing of the devkit", async () => {
    const tree = JSON.parse(await npm(["ls", "--omit=dev", "--all", "--json"], app)) as Tree;
    expect(Object.keys(tree.dependencies ?? {})).toEqual(["partner-api-client"]);
    expect(Object.keys(tree.dependencies!["partner-api-client"]!.dependencies ?? {})).toEqual(["openapi-fetch"]);
    const fetchManifest = JSON.parse(
      readFileSync(path.join(app, "node_modules", "openapi-fetch", "package.json"), "utf8"),
    ) as { dependencies?: Record<string, string> };
    const allowed = new Set(["partner-api-client", "openapi-fetch", ...Object.keys(fetchManifest.dependencies ?? {})]);
    expect(names(tree).filter((name) => !allowed.has(name))).toEqual([]);
    // The devkit and its Prism are there, for development only.
    const all = JSON.parse(await npm(["ls", "--depth=0", "--json"], app)) as Tree;
    expect(Object.keys(all.dependencies ?? {}).sort()).toEqual(["partner-api-client", "partner-api-devkit"]);
  });

  test("the devkit tarball holds the built command, its entries with types and the contracts, no machine paths", () => {
    const files = devkitPacked.files.map((file) => file.path).sort();
    expect(files.filter((file) => !/^dist\/(types|chunks|dashboard)\//.test(file))).toEqual(
      [
        "dist/cli.js",
        "dist/cli-kit.d.ts",
        "dist/cli-kit.js",
        "dist/msw.browser.js",
        "dist/msw.d.ts",
        "dist/msw.js",
        "dist/openapi.json",
        "dist/sandbox.d.ts",
        "dist/sandbox.js",
        "dist/sandbox.json",
        "dist/workflows/partner-api.arazzo.yaml",
        "dist/workflows/sandbox.arazzo.yaml",
        "package.json",
        "README.md",
      ].sort(),
    );
    expect(files).toContain("dist/types/devkit/src/sandbox/index.d.ts");
    expect(files).toContain("dist/types/devkit/src/cli/kit.d.ts");
    expect(files.filter((file) => file.startsWith("dist/chunks/")).every((file) => file.endsWith(".js"))).toBe(true);
    // The dashboard's page and the one file of Scalar its console needs; Scalar is no dependency.
    for (const file of ["index.html", "app.js", "app.css", "console.js", "scalar/standalone.js"])
      expect(files).toContain(`dist/dashboard/${file}`);
    const installed = path.join(app, "node_modules", "partner-api-devkit");
    expect(readFileSync(path.join(installed, "dist", "cli.js"), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
    for (const file of files.filter((f) => /\.(js|ts)$/.test(f))) {
      const text = readFileSync(path.join(installed, file), "utf8");
      expect(text, file).not.toContain(repoRoot);
      expect(text, file).not.toMatch(/from "(\.\.\/)+(scripts|src)\//);
    }
  });

  test("the devkit holds no copy of the client: it imports the partner's installed partner-api-client", () => {
    const installed = path.join(app, "node_modules", "partner-api-devkit");
    const code = devkitPacked.files
      .map((file) => file.path)
      .filter((file) => file.endsWith(".js"))
      .map((file) => readFileSync(path.join(installed, file), "utf8"))
      .join("\n");
    expect(code).toMatch(/from "partner-api-client"/);
    // The client's webhook modules define these; the devkit only imports them.
    for (const name of ["signWebhookPayload", "createWebhookHandler", "verifyWebhookSignature"])
      expect(code, name).not.toMatch(new RegExp(`function ${name}\\b`));
    const manifest = JSON.parse(readFileSync(path.join(installed, "package.json"), "utf8")) as {
      peerDependencies?: Record<string, string>;
    };
    const client = JSON.parse(
      readFileSync(path.join(app, "node_modules", "partner-api-client", "package.json"), "utf8"),
    ) as { version: string };
    // And MSW, optional (partner-api-devkit/msw): this project, without it, installs none.
    expect(manifest.peerDependencies).toEqual({ "partner-api-client": client.version, msw: expect.any(String) });
    expect(existsSync(path.join(app, "node_modules", "msw"))).toBe(false);
  });
}

/** The installed partner-api command: help, mock, sandbox and webhooks. */
function commandLine(): void {
  test("npx partner-api: --version, --help on every level, exit 2 for what it does not know", async () => {
    const version = await npx(["--version"]);
    expect(version).toMatchObject({ code: 0, stdout: `${devkitVersion}\n` });
    const help = await npx(["--help"]);
    expect(help.code).toBe(0);
    for (const command of ["sandbox", "mock", "webhooks", "verify", "proxy"])
      expect(help.stdout).toMatch(new RegExp(`^  ${command} `, "m"));
    const levels = [
      ["sandbox", "--help"],
      ["sandbox", "logs", "--help"],
      ["mock", "--help"],
      ["webhooks", "--help"],
      ["webhooks", "list", "--help"],
      ["webhooks", "trigger", "--help"],
      ["webhooks", "listen", "--help"],
      ["verify", "--help"],
      ["proxy", "--help"],
    ];
    const answers = await Promise.all(levels.map((args) => npx(args, { direct: true })));
    for (const [i, answer] of answers.entries()) {
      expect(answer.code, levels[i]!.join(" ")).toBe(0);
      expect(answer.stdout).toMatch(/^partner-api /);
    }
    expect(answers[5]!.stdout).toContain("Usage: partner-api webhooks trigger <type> --url <receiver>");
    const unknown = await npx(["replay"], { direct: true });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "replay"; expected one of sandbox, mock, webhooks/);
    const badSpeed = await npx(["sandbox", "--speed", "fast"], { direct: true });
    expect(badSpeed.code).toBe(2);
    expect(badSpeed.stderr).toMatch(/--speed must be a number greater than 0 .*got "fast"/);
    // The built verify loads its engine (fast-check, Ajv) and lists its checks.
    const checks = await npx(["verify", "--list-checks"], { direct: true });
    expect(checks.code).toBe(0);
    expect(checks.stdout).toMatch(/^account_isolation +error /m);
    const list = await npx(["webhooks", "list"], { direct: true });
    expect(list.code).toBe(0);
    expect(list.stdout.trim().split("\n")).toHaveLength(6);
    expect(list.stderr).toMatch(/6 event types, from node_modules\/partner-api-devkit\/dist\/openapi\.json/);
  }, 60_000);

  test("npx partner-api mock serves the packaged contract with Prism and stops on Ctrl-C", async () => {
    const port = await findFreePort();
    const mock = serve(["mock", "--port", String(port)]);
    const [, url] = await mock.waitFor(/Mock serving 15 operations of \S+ on (\S+) /);
    expect(url).toBe(`http://127.0.0.1:${port}`);
    const ok = await fetch(`${url}/v1/companies`, { headers: { "X-API-Key": "any" } });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { companies: unknown[] }).companies.length).toBeGreaterThan(0);
    expect((await fetch(`${url}/v1/companies`)).status).toBe(401);
    expect(await mock.interrupt()).toMatch(/Ctrl-C: stopping…[\s\S]*✓ mock stopped/);
  }, 60_000);

  test("npx partner-api sandbox answers, fires a signed webhook to the receiver given at start, stops on Ctrl-C", async () => {
    const hook = track(await startReceiver([200]));
    const sandbox = serve([
      "sandbox",
      "--port",
      "0",
      "--seed",
      "7",
      "--speed",
      "60",
      "--webhook-url",
      hook.url,
      "--webhook-secret",
      SECRET,
    ]);
    const [, url] = await sandbox.waitFor(/Sandbox serving the partner API on (\S+) /);
    await sandbox.waitFor(/control API: \S+\/_sandbox/);
    // A browser gets the dashboard, and its console's Scalar bundle, from the installed package.
    const page = await fetch(`${url}/`, { headers: { accept: "text/html" } });
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await page.text()).toContain("/_dashboard/app.js");
    const scalar = await fetch(`${url}/_dashboard/scalar.js`);
    expect(scalar.status).toBe(200);
    await scalar.arrayBuffer();
    const headers = { "X-API-Key": KEY, "Content-Type": "application/json" };
    const companies = await fetch(`${url}/v1/companies`, { headers });
    expect(companies.status).toBe(200);
    const onboarded = await fetch(`${url}/v1/companies`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        name: "Installed Test Ltd",
        countryCode: "US",
        directorName: "Maria Garcia",
        directorEmail: "maria@installed.example",
        directorPhone: "+14155550123",
        addressLine1: "500 Market Street",
        city: "San Francisco",
        state: "CA",
        postalCode: "94105",
        products: ["Swap"],
      }),
    });
    expect(onboarded.status, await onboarded.clone().text()).toBe(201);
    const { company } = (await onboarded.json()) as { company: { id: string } };
    await until(() => hook.deliveries.some((r) => r.body.includes(company.id)), 10_000);
    const delivery = hook.deliveries.find((r) => r.body.includes(company.id));
    expect(delivery, "a webhook about the new company").toBeDefined();
    expect(verifyWebhookSignature(delivery!.body, delivery!.signature, SECRET)).toBe(true);
    expect(JSON.parse(delivery!.body)).toMatchObject({
      type: "company.kyc_link.issued",
      payload: { companyId: company.id },
    });
    // The control commands, with the scenarios the package ships.
    const scenario = await npx(["sandbox", "scenario", "card-issued", "--url", url!, "--api-key", KEY], {
      direct: true,
    });
    expect(scenario.code, scenario.stderr).toBe(0);
    expect(scenario.stdout).toMatch(/^201 createCard POST \/v1\/cards {2}\(card-issued createCard\)$/m);
    expect(await sandbox.interrupt()).toMatch(/✓ sandbox stopped/);
  }, 60_000);
}

/** Webhooks across two processes, the shipped types and the docs' TypeScript. */
function webhooksAndTypes(): void {
  test("npx partner-api webhooks trigger delivers to webhooks listen, and keeps the retry schedule at --speed", async () => {
    const listen = serve(["webhooks", "listen", "--port", "0", "--secret", SECRET], { direct: true });
    const [, listenUrl] = await listen.waitFor(/listening on (\S+) /);
    const delivered = await npx([
      "webhooks",
      "trigger",
      "company.kyc_status_changed",
      "--url",
      listenUrl!,
      "--secret",
      SECRET,
      "--id",
      "evt_installed_1",
    ]);
    expect(delivered.code, delivered.stderr).toBe(0);
    expect(delivered.stdout).toMatch(/delivered evt_installed_1 on attempt 1\/6/);
    await listen.waitFor(/200 handled company\.kyc_status_changed evt_installed_1\n/);
    expect(await listen.interrupt()).toMatch(/stopped: 1 deliveries, 1 accepted, 0 refused/);

    // A receiver failing twice: the retries come after 10 s and 30 s, divided by --speed 60.
    const flaky = track(await startReceiver([500, 503, 204]));
    const retried = await npx(
      ["webhooks", "trigger", "payment_route.created", "--url", flaky.url, "--secret", SECRET, "--speed", "60"],
      { direct: true },
    );
    expect(retried.code, retried.stderr).toBe(0);
    expect(flaky.deliveries).toHaveLength(3);
    const [first, second] = flaky.deliveries.slice(1).map((r, i) => r.at - flaky.deliveries[i]!.at);
    expect(first).toBeGreaterThanOrEqual(10_000 / 60 - 2);
    expect(second).toBeGreaterThanOrEqual(30_000 / 60 - 2);
    expect(new Set(flaky.deliveries.map((r) => r.body)).size).toBe(1);
    expect(flaky.deliveries.every((r) => verifyWebhookSignature(r.body, r.signature, SECRET))).toBe(true);
    expect(retried.stdout).toMatch(/retry 1\/5 in 10\.00 s, 167 ms at this speed/);
    expect(retried.stdout).toMatch(/retry 2\/5 in 30\.00 s, 500 ms at this speed/);

    // And one that never recovers: six attempts, then exit 1.
    const broken = track(await startReceiver([500]));
    const failed = await npx([
      "webhooks",
      "trigger",
      "payment_route.created",
      "--url",
      broken.url,
      "--secret",
      SECRET,
      "--speed",
      "100000",
    ]);
    expect(failed.code).toBe(1);
    expect(broken.deliveries).toHaveLength(6);
    expect(failed.stderr).toMatch(/FAILED: not delivered: all 6 attempts failed/);
  }, 60_000);

  test("partner-api-devkit/sandbox and /cli are typed: the options, the result, the control client, a command; every declaration it ships compiles under strict without skipLibCheck", async () => {
    writeFileSync(path.join(app, "typed.ts"), TYPED_PROGRAM);
    expect(await strictTypeCheck(app, ["typed.ts"], ["partner-api-devkit"])).toBe("");
    // tsc checks @types/node whole here (no skipLibCheck): 24.x took 23-26 s alone against 19-20 s for 20.x.
  }, 90_000);

  test("every TypeScript of the docs compiles against the installed packages (guide, getting started, samples)", async () => {
    // The same modules test/docs/snippets-typecheck.test.ts compiles against the sources, and one wrong use of each
    // package that must fail.
    const broken = {
      name: "broken",
      source: [
        'import { createPartnerClient } from "partner-api-client";',
        'import { startSandbox } from "partner-api-devkit/sandbox";',
        'await createPartnerClient({ apiKey: "k", baseUrl: "http://x" }).GET("/v1/no-such-path");',
        "await startSandbox({ prot: 4020 });",
      ].join("\n"),
    };
    const errors = await typecheckModules(
      [
        ...documentedSnippets(loadDocument()).filter(
          (block) => !(Object.values(MSW_EXAMPLES) as string[]).includes(block.name),
        ),
        broken,
      ],
      { installedIn: app },
    );
    expect(errors.map((error) => `${error.where} ${error.message.split("\n")[0]}`)).toEqual([
      // openapi-fetch's overloads answer an unknown path with "Expected 2 arguments, but got 1".
      expect.stringMatching(/^broken:3 /),
      expect.stringMatching(/^broken:4 .*'prot' does not exist/),
    ]);
  }, 60_000);
}

/** The devkit's entries under plain node in the app. */
function plainNode(): void {
  test("partner-api-devkit/sandbox imports and starts with plain node in the app", async () => {
    const result = await nodeInApp<{ status: number; companies: number }>("start-sandbox.mjs", [
      'import { startSandbox } from "partner-api-devkit/sandbox";',
      "const sandbox = await startSandbox({ port: 0, seed: 5 });",
      'const response = await fetch(sandbox.url + "/v1/companies", { headers: { "X-API-Key": "k" } });',
      "const body = await response.json();",
      "await sandbox.stop();",
      "console.log(JSON.stringify({ status: response.status, companies: body.companies.length }));",
    ]);
    expect(result.status).toBe(200);
    expect(result.companies).toBeGreaterThan(0);
  }, 40_000);

  test("partner-api-devkit/cli runs a command in-process with plain node, through the installed client", async () => {
    const result = await nodeInApp<{ code: number; types: number; summary: string }>("run-command.mjs", [
      'import { runCommand, webhooksCommands } from "partner-api-devkit/cli";',
      "const out = [];",
      "const err = [];",
      'const code = await runCommand(webhooksCommands("hooks"), ["list"], { out: (t) => out.push(t), err: (t) => err.push(t) });',
      "console.log(JSON.stringify({ code, types: out.length, summary: err.join('') }));",
    ]);
    expect(result).toMatchObject({ code: 0, types: 6 });
    expect(result.summary).toMatch(/6 event types, from node_modules\/partner-api-devkit\/dist\/openapi\.json/);
  }, 40_000);
}

describe("the packed client and devkit, installed in a partner's project", () => {
  beforeAll(async () => {
    const started = performance.now();
    const lap = (what: string, since: number) => `${what} ${Math.round(performance.now() - since)} ms`;
    work = mkdtempSync(path.join(os.tmpdir(), "partner-api-installed-"));
    app = path.join(work, "partner-app");
    mkdirSync(app);
    // The two packs (esbuild and tsc each) run side by side, under the dist/ lock.
    const both = await packPackages(work, npm);
    devkitPacked = both.devkit;
    const clientPacked = both.client;
    const packed = lap("both packed in", started);
    // One install of both, as `npm install` in a partner's clone: the devkit's peer dependency is the client
    // installed beside it (installed alone, npm would fetch the peer from the registry).
    writeFileSync(
      path.join(app, "package.json"),
      JSON.stringify({
        name: "partner-app",
        private: true,
        type: "module",
        dependencies: { "partner-api-client": `file:${path.join(work, clientPacked.filename)}` },
        devDependencies: { "partner-api-devkit": `file:${path.join(work, devkitPacked.filename)}` },
      }),
    );
    await npm(["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"], app);
    console.info(`${packed}; ${lap("installed, all done in", started)}`);
  }, 420_000);

  afterAll(async () => {
    for (const served of serving) {
      if (served.child.exitCode === null && served.child.signalCode === null) {
        try {
          process.kill(-served.child.pid!, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
    await Promise.all(receivers.map((receiver) => receiver.close()));
    const removing = performance.now();
    if (work) await rm(work, { recursive: true, force: true });
    console.info(`removed the project in ${Math.round(performance.now() - removing)} ms`);
  });

  packedContents();
  commandLine();
  webhooksAndTypes();
  plainNode();
});

/** Writes a module into the app, runs it with plain node there and parses the JSON line it prints. */
async function nodeInApp<T>(file: string, lines: string[]): Promise<T> {
  writeFileSync(path.join(app, file), lines.join("\n"));
  const { stdout } = await run(process.execPath, [file], { cwd: app, env: npmEnv, timeout: 30_000 });
  return JSON.parse(stdout.trim()) as T;
}

const TYPED_PROGRAM = `
import { defineCommand, type ExitCode, runCommand } from "partner-api-devkit/cli";
import { startSandbox, type Sandbox, type SandboxOptions } from "partner-api-devkit/sandbox";

const options: SandboxOptions = { port: 0, seed: 5, speed: 60, webhooks: { url: "http://127.0.0.1:9/hooks", secret: "s" } };
const sandbox: Sandbox = await startSandbox(options);
const clock = await sandbox.control.GET("/_sandbox/clock");
const now: string | undefined = clock.data?.now;
await sandbox.control.POST("/_sandbox/clock/advance", { body: { seconds: 10 } });
// @ts-expect-error seconds is a number
await sandbox.control.POST("/_sandbox/clock/advance", { body: { seconds: "10" } });
// @ts-expect-error not an option of startSandbox
await startSandbox({ prot: 4020 });
const url: string = sandbox.url;
await sandbox.stop();

const hello = defineCommand({
  name: "hello",
  summary: "greets",
  usage: "Usage: hello [--name <name>]",
  options: { name: { type: "string" } },
  run({ values, io }) {
    const name: string | undefined = values.name;
    // @ts-expect-error --name is a string option
    const wrong: boolean | undefined = values.name;
    io.out(\`hello \${name ?? "there"} \${wrong}\`);
    return undefined;
  },
});
const code: ExitCode = await runCommand(hello, ["--name", "Ana"]);
export { code, now, url };
`;

interface Tree {
  dependencies?: Record<string, Tree>;
}

function names(tree: Tree): string[] {
  return Object.entries(tree.dependencies ?? {}).flatMap(([name, sub]) => [name, ...names(sub)]);
}
