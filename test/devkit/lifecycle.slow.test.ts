/**
 * Server commands leave nothing behind: the sandbox (and the mock with its Prism, and the webhook receiver)
 * stops on SIGTERM and SIGINT however it was started, and when the process that started it is gone, killed
 * with SIGTERM or SIGKILL: `npm run sandbox`, `npx partner-api sandbox` (npm exec of the bin, as a partner's
 * project runs it), node directly, a process of one's own calling startSandbox. Every server command prints
 * the address it really listens on, `--port 0` included. The guide's CI recipe, run as written, leaves nothing
 * answering. Each test starts processes (slow: the file name says so).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { findFreePort } from "../../devkit/src/prism.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { SOURCE_NODE_ARGS } from "../../scripts/lib/source.ts";
import { answers, runCiStep, projectWithBin as sharedProjectWithBin } from "../helpers/partner-project.ts";
import { alive } from "../helpers/process.ts";

const MAIN = path.join(repoRoot, "devkit", "src", "cli", "main.ts");
/** How long a stopped server may take to stop answering: the parent is checked every 0.5 s. */
const STOPS_WITHIN_MS = 8_000;

/** Process groups started here, killed after each test whatever happened (each test's own, by id). */
const groups: number[] = [];
const folders: string[] = [];
afterEach(() => {
  for (const pid of groups.splice(0)) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  /** The address the server printed. */
  url: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts a command in a process group of its own and waits until it prints an http://127.0.0.1:<port> address. */
async function serve(command: string, args: string[], options: { cwd?: string; pattern?: RegExp } = {}) {
  const child = spawn(command, args, {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  groups.push(child.pid!);
  let text = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const pattern = options.pattern ?? /http:\/\/127\.0\.0\.1:(\d+)/;
  const deadline = performance.now() + 60_000;
  for (;;) {
    const match = pattern.exec(text);
    if (match) return { child, url: `http://127.0.0.1:${match[1]}`, output: () => text, exited } satisfies Started;
    if (child.exitCode !== null || performance.now() > deadline)
      throw new Error(`${command} ${args.join(" ")} printed no address:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits until nothing answers at `url`; fails naming what the server printed when something still does. */
async function stopsAnswering(url: string, started: Started): Promise<void> {
  const deadline = performance.now() + STOPS_WITHIN_MS;
  while (await answers(url)) {
    if (performance.now() > deadline)
      throw new Error(`${url} still answers ${STOPS_WITHIN_MS} ms later; it printed:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A project folder whose node_modules/.bin/partner-api runs the devkit's CLI from source, removed after the test. */
function projectWithBin(): string {
  const folder = sharedProjectWithBin();
  folders.push(folder);
  return folder;
}

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const npx = process.platform === "win32" ? "npx.cmd" : "npx";

describe("the sandbox stops when the process that started it is gone", () => {
  it.each(["SIGTERM", "SIGKILL"] as const)("npm run sandbox -- --port 0, npm killed with %s", async (signal) => {
    const started = await serve(npm, ["run", "sandbox", "--", "--port", "0"]);
    expect(await answers(`${started.url}/_sandbox/clock`)).toBe(true);
    process.kill(started.child.pid!, signal);
    await stopsAnswering(started.url, started);
  });

  it.each(["SIGTERM", "SIGKILL"] as const)("npx partner-api sandbox --port 0, npx killed with %s", async (signal) => {
    const started = await serve(npx, ["partner-api", "sandbox", "--port", "0"], { cwd: projectWithBin() });
    expect(started.output()).toContain(`Sandbox serving the partner API on ${started.url}`);
    process.kill(started.child.pid!, signal);
    await stopsAnswering(started.url, started);
    if (signal === "SIGTERM") await expect.poll(started.output).toMatch(/is gone: stopping…|SIGTERM: stopping…/);
  });

  it.each([
    [[], false],
    [["--no-exit-with-parent"], true],
  ] as const)("node directly under a parent that is killed (%j): serving afterwards %s", async (extra, serving) => {
    // The parent prints its child's pid, then the child's output.
    const parent = `const { spawn } = require("node:child_process");
const child = spawn(process.execPath, JSON.parse(process.argv[1]), { stdio: ["ignore", "inherit", "inherit"] });
console.log("child pid " + child.pid);`;
    const args = [...SOURCE_NODE_ARGS, MAIN, "sandbox", "--port", "0", ...extra];
    const started = await serve(process.execPath, ["-e", parent, JSON.stringify(args)]);
    const sandboxPid = Number(/child pid (\d+)/.exec(started.output())![1]);
    process.kill(started.child.pid!, "SIGKILL");
    if (serving) {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await answers(started.url)).toBe(true);
      process.kill(sandboxPid, "SIGTERM");
    }
    await stopsAnswering(started.url, started);
    await expect.poll(() => alive(sandboxPid), { timeout: STOPS_WITHIN_MS }).toBe(false);
  });
});

describe("a parent gone before the server starts watching it", () => {
  it("still counts as gone: the watch compares with the parent the command started under", async () => {
    // The child loads the lifecycle module (as a command does at its start), waits until its parent has exited
    // (a script that killed it the moment it printed its address), and only then starts watching.
    const LIFECYCLE = path.join(repoRoot, "devkit", "src", "cli", "lifecycle.ts");
    const child = `import { untilStopped } from ${JSON.stringify(LIFECYCLE)};
const startedUnder = process.ppid;
// What keeps a server's process up: its listening socket.
const server = setInterval(() => {}, 1_000);
console.log("child pid " + process.pid);
while (process.ppid === startedUnder) await new Promise((resolve) => setTimeout(resolve, 20));
const io = { out: (text) => console.log(text), err: (text) => console.log(text) };
await untilStopped(new AbortController().signal, io, true);
console.log("watch ended");
clearInterval(server);`;
    const parent = `const { spawn } = require("node:child_process");
spawn(process.execPath, JSON.parse(process.argv[1]), { stdio: ["ignore", "inherit", "inherit"] });
setTimeout(() => process.exit(0), 300);`;
    const args = [...SOURCE_NODE_ARGS, "--input-type=module", "-e", child];
    const started = await serve(process.execPath, ["-e", parent, JSON.stringify(args)], { pattern: /child pid (\d+)/ });
    const childPid = Number(/child pid (\d+)/.exec(started.output())![1]);
    await started.exited;
    await expect.poll(started.output, { timeout: STOPS_WITHIN_MS }).toMatch(/is gone: stopping…[\s\S]*watch ended/);
    await expect.poll(() => alive(childPid), { timeout: STOPS_WITHIN_MS }).toBe(false);
  });
});

describe("the sandbox stops on SIGTERM and SIGINT", () => {
  it.each(["SIGTERM", "SIGINT"] as const)("run with node directly: %s stops it, exit 0", async (signal) => {
    const started = await serve(process.execPath, [...SOURCE_NODE_ARGS, MAIN, "sandbox", "--port", "0"]);
    process.kill(started.child.pid!, signal);
    expect(await started.exited).toEqual({ code: 0, signal: null });
    expect(started.output()).toContain("✓ sandbox stopped");
    expect(await answers(started.url)).toBe(false);
  });

  it.each(["SIGTERM", "SIGINT"] as const)("startSandbox in a process of one's own: %s ends it", async (signal) => {
    const program = `import { startSandbox } from "partner-api-devkit/sandbox";
const sandbox = await startSandbox({ port: 0 });
console.log("serving on " + sandbox.url);`;
    const started = await serve(process.execPath, [...SOURCE_NODE_ARGS, "--input-type=module", "-e", program]);
    process.kill(started.child.pid!, signal);
    expect((await started.exited).signal).toBe(signal);
    expect(await answers(started.url)).toBe(false);
  });
});

describe("every server command prints the address it listens on, --port 0 included", () => {
  it("npm run mock -- --port 0: Prism on a free port, printed; npm killed with SIGKILL takes the mock and Prism along", async () => {
    const started = await serve(npm, ["run", "mock", "--", "--port", "0"], {
      pattern: /Mock serving .* on http:\/\/127\.0\.0\.1:(\d+)/,
    });
    const prismPid = Number(/Prism pid (\d+)/.exec(started.output())![1]);
    const companies = await fetch(`${started.url}/v1/companies`, { headers: { "X-API-Key": "any" } });
    expect(companies.status).toBe(200);
    process.kill(started.child.pid!, "SIGKILL");
    await stopsAnswering(started.url, started);
    await expect.poll(() => alive(prismPid), { timeout: STOPS_WITHIN_MS }).toBe(false);
  });

  it("npm run webhooks -- listen --port 0: the real port, printed; npm killed with SIGTERM stops it", async () => {
    const started = await serve(npm, ["run", "webhooks", "--", "listen", "--port", "0", "--secret", "whsec_x"], {
      pattern: /listening on http:\/\/127\.0\.0\.1:(\d+)\//,
    });
    expect((await fetch(started.url, { method: "POST", body: "{}" })).status).toBe(401);
    process.kill(started.child.pid!, "SIGTERM");
    await stopsAnswering(started.url, started);
  });
});

describe("docs:preview stops with the process that started it", () => {
  it.each(["SIGTERM", "SIGKILL"] as const)("npm run docs:preview -- --port 0, npm killed with %s", async (signal) => {
    const folder = mkdtempSync(path.join(tmpdir(), "preview-parent-"));
    folders.push(folder);
    writeFileSync(path.join(folder, "index.html"), "<!doctype html><title>docs</title>");
    const started = await serve(npm, ["run", "docs:preview", "--", "--port", "0", "--dir", folder], {
      pattern: /Docs preview: http:\/\/127\.0\.0\.1:(\d+)/,
    });
    expect(await answers(`${started.url}/`)).toBe(true);
    process.kill(started.child.pid!, signal);
    await stopsAnswering(started.url, started);
  });
});

describe("the guide's CI recipe", () => {
  it("started and stopped as the workflow in docs/partners.md writes it, leaves nothing answering", async () => {
    const guide = readFileSync(path.join(repoRoot, "docs", "partners.md"), "utf8");
    const workflow = parse(/<!-- partner-workflow -->\n```yaml\n([\s\S]*?)\n```/.exec(guide)![1]!);
    const steps = workflow.jobs.test.steps as { name?: string; run?: string; if?: string }[];
    const start = steps.find((step) => step.name === "Start the sandbox");
    const stop = steps.find((step) => step.name === "Stop the sandbox");
    expect(start?.run).toContain("npx partner-api sandbox --port 4020");
    expect(stop?.if).toBe("always()");
    // The recipe's port is the sandbox's default; here, a free one, so the test runs beside anything else.
    const port = await findFreePort();
    const url = `http://127.0.0.1:${port}`;
    const project = projectWithBin();
    // As GitHub Actions runs a `run:` step: bash, stopping at the first failing command.
    const step = (script: string) =>
      runCiStep(script.replaceAll("4020", String(port)), project, (pid) => groups.push(pid));
    const started = await step(start!.run!);
    expect(started.code, started.output).toBe(0);
    expect(await answers(`${url}/_sandbox/clock`)).toBe(true);
    const stopped = await step(stop!.run!);
    expect(stopped.code, stopped.output).toBe(0);
    expect(await answers(url)).toBe(false);
    const log = readFileSync(path.join(project, "sandbox.log"), "utf8");
    expect(log).toContain("✓ sandbox stopped");
  });
});
