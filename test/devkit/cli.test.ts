/**
 * The `partner-api` command from source: --help on every level and --version in-process through the one
 * runner, the sandbox's bad options named with exit 2, and `npm run sandbox` (scripts/sandbox.ts) as a process:
 * SANDBOX_PORT/--port, what it prints, --state carried over a restart, Ctrl-C stopping it cleanly.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type CliIO, type Command, type CommandGroup, runCommand } from "partner-api-devkit/cli";
import { afterAll, describe, expect, it } from "vitest";
import { partnerApiCli } from "../../devkit/src/cli/index.ts";
import { findFreePort } from "../../devkit/src/prism.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { SOURCE_NODE_ARGS } from "../../scripts/lib/source.ts";
import { occupiedPort } from "../helpers/ports.ts";

async function inProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { out: (text) => out.push(text), err: (text) => err.push(text) };
  const code = await runCommand(partnerApiCli, args, io);
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

/** Every command path of the group, e.g. ["webhooks", "trigger"]. */
function commandPaths(entry: Command | CommandGroup, prefix: string[] = []): string[][] {
  if (!("commands" in entry)) return [prefix];
  return [prefix, ...Object.entries(entry.commands).flatMap(([name, sub]) => commandPaths(sub, [...prefix, name]))];
}

describe("partner-api, in-process", () => {
  it("prints the devkit's version", async () => {
    const version = JSON.parse(readFileSync(path.join(repoRoot, "devkit", "package.json"), "utf8")).version;
    expect(await inProcess(["--version"])).toEqual({ code: 0, stdout: version, stderr: "" });
  });

  const paths = commandPaths(partnerApiCli);
  it("has the five commands, the sandbox's control commands and the three webhooks subcommands", () => {
    expect(paths.map((p) => p.join(" "))).toEqual([
      "",
      "sandbox",
      "sandbox start",
      "sandbox clock",
      "sandbox clock status",
      "sandbox clock advance",
      "sandbox clock freeze",
      "sandbox clock resume",
      "sandbox kyc",
      "sandbox terms",
      "sandbox route",
      "sandbox route open",
      "sandbox deposit",
      "sandbox trigger",
      "sandbox events",
      "sandbox logs",
      "sandbox faults",
      "sandbox faults add",
      "sandbox faults list",
      "sandbox faults remove",
      "sandbox faults clear",
      "sandbox scenario",
      "sandbox reset",
      "mock",
      "webhooks",
      "webhooks list",
      "webhooks trigger",
      "webhooks listen",
      "verify",
      "proxy",
    ]);
  });

  it("sandbox without a command is sandbox start; its help says so", async () => {
    const help = await inProcess(["sandbox", "--help"]);
    expect(help.stdout).toContain(
      "Usage: partner-api sandbox [options]            the same as partner-api sandbox start [options]",
    );
    expect(help.stdout).toMatch(/^ {2}logs +prints the calls the sandbox answered/m);
    // Bad start options are refused the same either way.
    for (const args of [
      ["sandbox", "--port", "x"],
      ["sandbox", "start", "--port", "x"],
    ])
      expect(await inProcess(args)).toMatchObject({ code: 2, stderr: expect.stringContaining("--port must be") });
    expect((await inProcess(["sandbox", "route"])).code).toBe(2);
  });

  it.each(paths.map((p) => [p.join(" ") || "(top)", p]))("%s --help: usage on stdout, exit 0", async (_, prefix) => {
    const help = await inProcess([...prefix, "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(new RegExp(`^${["partner-api", ...prefix].join(" ")}: \\S`));
    expect(help.stdout).toMatch(/Usage: partner-api/);
    expect(help.stderr).toBe("");
  });

  it("refuses an unknown command and a missing one with exit 2", async () => {
    expect(await inProcess(["serve"])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/unknown command "serve"; expected one of sandbox, mock, webhooks, verify, proxy/),
    });
    expect(await inProcess(["webhooks"])).toMatchObject({ code: 2, stderr: expect.stringMatching(/Commands:/) });
  });

  it.each([
    [["--port", "70000"], /--port must be a whole number from 0 to 65535, got "70000"/],
    [["--host", "not a host"], /--host must be an IP address or a host name .*got "not a host"/],
    [["--seed", "1.5"], /--seed must be a whole number from 0 to \d+, got "1\.5"/],
    [["--seed=-1"], /--seed must be a whole number from 0 to \d+, got "-1"/],
    [["--speed", "0"], /--speed must be a number greater than 0 and at most 1000000, got "0"/],
    [["--state", ""], /--state must be a file path/],
    [
      ["--start-time", "1969-12-31T23:59:59Z"],
      /--start-time must be from 1970-01-01T00:00:00\.000Z to 9999-12-31T23:59:59\.999Z \(the sandbox clock's range\), got "1969-12-31T23:59:59Z"/,
    ],
    [["--webhook-url", "http://127.0.0.1:9/hooks"], /--webhook-url needs --webhook-secret/],
    [["--webhook-secret", "s"], /--webhook-secret needs --webhook-url/],
    [
      ["--webhook-url", "ftp://x/", "--webhook-secret", "s"],
      /--webhook-url must be an http: or https: URL .*got "ftp:\/\/x\/"/,
    ],
    [["--verbose"], /Unknown option '--verbose'/],
    [["--state", "no-such-folder-e2/state.json"], /--state no-such-folder-e2\/state\.json: its folder does not exist/],
  ])("sandbox %j: exit 2, naming the option", async (args, message) => {
    const result = await inProcess(["sandbox", ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe("");
  });
});

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `npm run sandbox -- …`: the script's own node process, so signals reach it directly. */
function runSandbox(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, path.join(repoRoot, "scripts", "sandbox.ts"), ...args], {
    cwd: repoRoot,
    env: { ...process.env, SANDBOX_PORT: "", SANDBOX_HOST: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    exited,
    output: () => ({ stdout, stderr }),
    async waitFor(pattern: RegExp, ms = 30_000): Promise<RegExpMatchArray> {
      const deadline = Date.now() + ms;
      for (;;) {
        const match = stdout.match(pattern);
        if (match) return match;
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no ${pattern}:\n${stdout}\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

describe("npm run sandbox", { tags: ["slow"] }, () => {
  it("serves on SANDBOX_PORT, says where and what it holds, keeps --state over a restart, stops on Ctrl-C", async () => {
    const port = await findFreePort();
    const dir = mkdtempSync(path.join(tmpdir(), "sandbox-cli-"));
    dirs.push(dir);
    const state = path.join(dir, "state.json");
    const first = runSandbox(["--seed", "11", "--state", state, "--speed", "10"], { SANDBOX_PORT: String(port) });
    const [, url] = await first.waitFor(/Sandbox serving the partner API on (\S+) \(started in \d+ ms\)/);
    await first.waitFor(/Try: curl/);
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(first.output().stdout).toContain(`control API: ${url}/_sandbox`);
    // The dashboard's address, and a browser gets the page there.
    expect(first.output().stdout).toContain(`dashboard:   ${url}/ (open it in a browser`);
    const page = await fetch(`${url}/`, { headers: { accept: "text/html" } });
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    await page.text();
    expect(first.output().stdout).toMatch(/holds: +nothing yet \(new state file .*state\.json\)/);
    expect(first.output().stdout).toMatch(/seed 11, state in .*state\.json, clock at 10x/);
    const listed = await fetch(`${url}/v1/companies`, { headers: { "X-API-Key": "cli-test" } });
    expect(listed.status).toBe(200);
    const { companies } = (await listed.json()) as { companies: { id: string }[] };
    expect(companies.length).toBeGreaterThan(0);
    first.child.kill("SIGINT");
    expect(await first.exited).toBe(0);
    expect(first.output().stderr).toMatch(/Ctrl-C: stopping…[\s\S]*✓ sandbox stopped \(\d+ ms\)/);
    await expect(fetch(`${url}/v1/companies`)).rejects.toThrow();

    // The same state file: the account and its ids are still there, and the seed is carried over.
    const second = runSandbox(["--port", String(port), "--state", state]);
    await second.waitFor(/Try: curl/);
    expect(second.output().stdout).toMatch(
      /holds: +1 account\(s\), \d+ compan(y|ies), \d+ event\(s\) from .*state\.json \(seed 11,/,
    );
    const again = await fetch(`${url}/v1/companies`, { headers: { "X-API-Key": "cli-test" } });
    expect(((await again.json()) as { companies: { id: string }[] }).companies.map((c) => c.id)).toEqual(
      companies.map((c) => c.id),
    );
    // A third on the same file while the second runs: refused, naming the file and the process (exit 1).
    const third = runSandbox(["--port", "0", "--state", state]);
    expect(await third.exited).toBe(1);
    expect(third.output().stderr).toMatch(
      new RegExp(`state\\.json is in use by process ${second.child.pid} on .*stop that sandbox first`),
    );
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  }, 60_000);

  it("says which port is taken and how to choose another (exit 1)", async () => {
    const { port, server: blocker } = await occupiedPort();
    try {
      const run = runSandbox(["--port", String(port)]);
      expect(await run.exited).toBe(1);
      expect(run.output().stderr).toMatch(new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: EADDRINUSE`));
      expect(run.output().stderr).toContain("set --port (or SANDBOX_PORT) to a free port");
    } finally {
      blocker.close();
    }
  }, 30_000);

  it("names a bad SANDBOX_PORT (exit 2)", async () => {
    const run = runSandbox([], { SANDBOX_PORT: "http" });
    expect(await run.exited).toBe(2);
    expect(run.output().stderr).toContain('error: SANDBOX_PORT must be a whole number from 0 to 65535, got "http"');
  }, 30_000);
});
