/**
 * proxy: what `partner-api proxy` adds to a request. The local sandbox in its own process (as `npm run sandbox`
 * starts it) and the proxy in its own (as `npm run proxy` starts it); the same requests, one at a time, straight
 * to the sandbox and through the proxy, in alternating rounds. Target: at most 1 ms added to the median.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Agent } from "node:http";
import path from "node:path";
import { SOURCE_NODE_ARGS } from "../scripts/lib/source.ts";
import type { Benchmark } from "./context.ts";
import { median, roundOrder } from "./harness.ts";
import { load, type MockOperation } from "./mock.ts";
import type { Figure, Ratio } from "./results.ts";
import { type StartedSandbox, startSandboxCommand } from "./sandbox.ts";

const API_KEY = "bench-proxy";

/** The contract's own example of a KYB profile (submitKybProfile's first named example). */
function kybExample(repoRoot: string): unknown {
  const document = JSON.parse(readFileSync(path.join(repoRoot, "generated", "openapi.json"), "utf8"));
  const examples = document.paths["/v1/kyb-profiles"].post.requestBody.content["application/json"].examples;
  return (Object.values(examples)[0] as { value: unknown }).value;
}
/** The budget: the proxy adds at most this to the median request. */
const BUDGET_MS = 1;

async function startProxyProcess(repoRoot: string, upstream: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [...SOURCE_NODE_ARGS, path.join(repoRoot, "scripts", "proxy.ts"), "--upstream", upstream, "--port", "0"],
    { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the proxy did not start within 30 s:\n${output}`)), 30_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const match = /Proxy on (\S+) /.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the proxy exited (code ${code}) before listening:\n${output}`));
    });
  });
  return { url, child };
}

export const proxyBenchmark: Benchmark = {
  name: "proxy",
  title: "proxy overhead against the local sandbox",
  async run({ size, progress, repoRoot }) {
    const perRound = size === "full" ? 1_000 : size === "quick" ? 300 : 30;
    const rounds = size === "full" ? 6 : size === "quick" ? 4 : 2;
    let sandbox: StartedSandbox | undefined;
    let proxy: { url: string; child: ChildProcess } | undefined;
    const agents: Agent[] = [];
    try {
      progress("proxy: starting the sandbox (as npm run sandbox) and the proxy in front of it (as npm run proxy)");
      sandbox = await startSandboxCommand(repoRoot, [
        ...SOURCE_NODE_ARGS,
        path.join(repoRoot, "scripts", "sandbox.ts"),
      ]);
      proxy = await startProxyProcess(repoRoot, sandbox.url);
      const companies = (await (
        await fetch(`${sandbox.url}/v1/companies`, { headers: { "X-API-Key": API_KEY } })
      ).json()) as {
        companies: { id: string }[];
      };
      const headers = {
        "X-API-Key": API_KEY,
        "X-Company-Id": companies.companies[0]!.id,
        "Content-Type": "application/json",
      };
      const operations: MockOperation[] = [
        { name: "GET /v1/card-bins", method: "GET", url: "/v1/card-bins", body: "", expectedStatus: 200, headers },
        {
          name: "POST /v1/kyb-profiles (201)",
          method: "POST",
          url: "/v1/kyb-profiles",
          body: JSON.stringify(kybExample(repoRoot)),
          expectedStatus: 201,
          headers,
        },
      ];
      const sides = {
        direct: { port: sandbox.port, agent: new Agent({ keepAlive: true, maxSockets: 1 }) },
        proxy: { port: Number(new URL(proxy.url).port), agent: new Agent({ keepAlive: true, maxSockets: 1 }) },
      };
      agents.push(sides.direct.agent, sides.proxy.agent);
      for (const side of Object.values(sides)) await load(side, operations, size === "tiny" ? 10 : 200, 1);
      const figures: Figure[] = [];
      const ratios: Ratio[] = [];
      for (const operation of operations) {
        const medians = { direct: [] as number[], proxy: [] as number[] };
        for (let round = 0; round < rounds; round++) {
          for (const side of roundOrder(["direct", "proxy"] as const, round)) {
            const run = await load(sides[side], [operation], perRound, 1);
            medians[side].push(median(run.latencies));
          }
          progress(`proxy ${operation.name}: round ${round + 1}/${rounds}`);
        }
        const direct = median(medians.direct);
        const through = median(medians.proxy);
        const added = through - direct;
        figures.push(
          { label: `straight to the sandbox, median latency, ${operation.name}`, value: direct, unit: "ms" },
          { label: `through the proxy, median latency, ${operation.name}`, value: through, unit: "ms" },
          { label: `added by the proxy, ${operation.name}`, value: added, unit: "ms" },
        );
        ratios.push({
          label: `1 ms ÷ what the proxy adds to the median, ${operation.name} (at least 1: 1 ms or less)`,
          value: BUDGET_MS / Math.max(added, 0.01),
          target: 1,
        });
      }
      return {
        name: "proxy",
        title: "proxy overhead against the local sandbox",
        method: `The sandbox and the proxy each in its own process (\`npm run sandbox\`, \`npm run proxy -- --upstream <sandbox>\`); one request at a time on a keep-alive connection, ${perRound} per round, ${rounds} rounds alternating straight to the sandbox and through the proxy; the median of the rounds' median latencies. The proxy validates both directions after each answer has been passed on.`,
        figures,
        ratios,
        notes: [
          "A ratio of 100 means the proxy added 0.01 ms or less (or the difference was within noise, below zero).",
        ],
      };
    } finally {
      for (const agent of agents) agent.destroy();
      proxy?.child.kill("SIGINT");
      await sandbox?.process.stop("SIGTERM");
    }
  },
};
