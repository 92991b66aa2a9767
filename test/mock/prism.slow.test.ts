/**
 * devkit/src/prism.ts: starting Prism on a free port, stopping it for good, and clear errors when it
 * cannot start. Each test starts its own Prism on a port of its own.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findFreePort, type PrismServer, prismVersion, startPrism } from "../../devkit/src/prism.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { SOURCE_NODE_ARGS } from "../../scripts/lib/source.ts";
import { occupiedPort } from "../helpers/ports.ts";
import { alive } from "../helpers/process.ts";

const started: PrismServer[] = [];
afterAll(async () => {
  await Promise.all(started.map((server) => server.stop()));
});

async function waitUntil(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return condition();
}

it("prismVersion names the Prism installed, the one both package.json files pin", () => {
  const pins = ["package.json", "devkit/package.json"].map(
    (file) =>
      (JSON.parse(readFileSync(path.join(repoRoot, file), "utf8")) as { [key: string]: Record<string, string> })[
        file === "package.json" ? "devDependencies" : "dependencies"
      ]!["@stoplight/prism-cli"],
  );
  expect(pins[0]).toMatch(/^\d+\.\d+\.\d+$/);
  expect(pins).toEqual([prismVersion(), prismVersion()]);
});

describe("startPrism", () => {
  it("serves the bundle on a free loopback port, logs what it rejects, and stops for good", async () => {
    const lines: string[] = [];
    const server = await startPrism({ onLog: (line) => lines.push(line) });
    started.push(server);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect(alive(server.pid)).toBe(true);
    const ok = await fetch(`${server.url}/v1/companies`, { headers: { "X-API-Key": "k" } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toHaveProperty("companies");
    const rejected = await fetch(`${server.url}/v1/card-bins`, { headers: { "X-API-Key": "k" } });
    expect(rejected.status).toBe(422);
    expect(await waitUntil(() => lines.some((line) => /x-company-id/i.test(line)), 2_000)).toBe(true);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes start with ESC
    expect(lines.join("\n")).not.toMatch(/\u001b\[/); // colours removed

    await server.stop();
    expect(alive(server.pid)).toBe(false);
    await expect(fetch(`${server.url}/v1/companies`)).rejects.toThrow();
    await server.stop(); // a second stop is harmless
  });

  it("uses the port it is given", async () => {
    const port = await findFreePort();
    const server = await startPrism({ port });
    started.push(server);
    expect(server.port).toBe(port);
    expect((await fetch(`${server.url}/v1/companies`, { headers: { "X-API-Key": "k" } })).status).toBe(200);
    await server.stop();
  });

  it("says the port is in use when it is", async () => {
    const { port, server: blocker } = await occupiedPort();
    try {
      await expect(startPrism({ port })).rejects.toThrow(new RegExp(`port ${port} is already in use`));
    } finally {
      blocker.close();
    }
  });

  it("names a missing document, a bad port and a bad log level", async () => {
    await expect(startPrism({ document: "generated/no-such-file.yaml" })).rejects.toThrow(
      /generated\/no-such-file\.yaml does not exist/,
    );
    await expect(startPrism({ port: 70_000 })).rejects.toThrow(/port must be an integer from 1 to 65535, got 70000/);
    await expect(startPrism({ logLevel: "loud" as never })).rejects.toThrow(/logLevel must be one of .*got "loud"/);
  });

  it("reports Prism's own last lines when Prism cannot load the document", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "prism-test-"));
    try {
      const document = path.join(dir, "empty.yaml");
      writeFileSync(document, "openapi: 3.1.0\ninfo: { title: t, version: '1' }\npaths: {}\n");
      await expect(startPrism({ document, startTimeoutMs: 20_000 })).rejects.toThrow(
        /Prism exited[\s\S]*last lines from Prism:[\s\S]*No operations found/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("does not outlive a parent killed with SIGKILL", async () => {
    const script = [
      'import { startPrism } from "./devkit/src/prism.ts";',
      "const server = await startPrism();",
      "console.log(String(server.pid));",
      "setInterval(() => {}, 1000);",
    ].join("\n");
    const parent = spawn(process.execPath, [...SOURCE_NODE_ARGS, "--input-type=module", "-e", script], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    parent.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    parent.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    expect(await waitUntil(() => /^\d+$/m.test(output), 30_000), output).toBe(true);
    const prismPid = Number(/^(\d+)$/m.exec(output)![1]);
    expect(alive(prismPid)).toBe(true);
    // Kill the node process that owns Prism: the process whose child Prism is.
    const owner = Number(
      (await import("node:fs")).readFileSync(`/proc/${prismPid}/stat`, "utf8").split(") ")[1]!.split(" ")[1],
    );
    process.kill(owner, "SIGKILL");
    parent.kill("SIGKILL");
    expect(await waitUntil(() => !alive(prismPid), 5_000)).toBe(true);
  });
});

describe("findFreePort", () => {
  it("finds a port that can be bound", async () => {
    const port = await findFreePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    server.close();
  });
});
