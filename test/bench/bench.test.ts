/**
 * Benchmarks are not tests: this tests the harness (statistics, alternation, argument parsing, the RESULTS.md
 * writer) on its own; test/bench/tiny.slow.test.ts (a slow suite) runs each benchmark once at tiny size so it cannot rot.
 */
import { createHmac } from "node:crypto";
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { benchCommand } from "../../bench/cli.ts";
import { assertSameRequests, makeCallers, stubFetch } from "../../bench/client.ts";
import { makeSandbox } from "../../bench/context.ts";
import {
  compareAlternating,
  compareCommands,
  median,
  microBenchRounds,
  percentile,
  roundOrder,
  sinkCount,
  timeCommand,
} from "../../bench/harness.ts";
import { BENCHMARKS } from "../../bench/index.ts";
import { machineInfo } from "../../bench/machine.ts";
import { processMemoryMiB } from "../../bench/mock.ts";
import { formatNumber, type RunSummary, renderResults, scrubPaths, targetMet } from "../../bench/results.ts";
import { consumerSource, parseDiagnostics } from "../../bench/typecheck.ts";
import { bareVerify, webhookBody } from "../../bench/webhooks.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { listOperations } from "../contract/support/contract.ts";
import { runInProcess, runScript } from "../helpers/run.ts";

const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

describe("harness statistics", () => {
  it("takes the median of odd and even counts without reordering the input", () => {
    const values = [5, 1, 3];
    expect(median(values)).toBe(3);
    expect(values).toEqual([5, 1, 3]);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow(/no values/);
  });

  it("takes nearest-rank percentiles and rejects a bad p", () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(() => percentile(values, 0)).toThrow(/percentile must be/);
  });

  it("rotates the order of candidates each round", () => {
    expect(roundOrder(["a", "b", "c"], 0)).toEqual(["a", "b", "c"]);
    expect(roundOrder(["a", "b", "c"], 1)).toEqual(["b", "c", "a"]);
    expect(roundOrder(["a", "b"], 3)).toEqual(["b", "a"]);
  });
});

describe("microBenchRounds", () => {
  it("measures more and longer at each larger size", () => {
    const [tiny, quick, full] = (["tiny", "quick", "full"] as const).map(microBenchRounds);
    expect(tiny).toEqual({ rounds: 1, targetBatchMs: 1 });
    expect(quick!.rounds).toBeGreaterThan(tiny!.rounds);
    expect(full!.rounds).toBeGreaterThan(quick!.rounds);
    expect(full!.targetBatchMs).toBeGreaterThan(quick!.targetBatchMs);
  });
});

describe("compareAlternating", () => {
  it("alternates candidates round by round in equal batches and reports a paired ratio", async () => {
    const calls: string[] = [];
    const result = await compareAlternating({
      candidates: { a: () => calls.push("a") && {}, b: () => calls.push("b") && {} },
      rounds: 3,
      warmupRounds: 1,
      batch: 2,
    });
    // Warm-up round (a first), then b first, then a first, then b first.
    expect(calls.join("")).toBe("aabb" + "bbaa" + "aabb" + "bbaa");
    expect(result.stats.a!.samples).toHaveLength(3);
    expect(result.batch).toBe(2);
    expect(result.ratio("a", "a")).toBe(1);
    expect(() => result.ratio("a", "nope")).toThrow(/no candidate named "nope"/);
  });

  it("measures a slower candidate as slower, by the clock it reads", async () => {
    // A clock the candidates drive: one call of `fast` costs 1,000 ns, one of `slow` 20,000 ns, whatever the load.
    let now = 0n;
    const costs = (ns: bigint) => () => {
      now += ns;
      return { ns };
    };
    const before = sinkCount();
    const result = await compareAlternating({
      candidates: { fast: costs(1_000n), slow: costs(20_000n) },
      rounds: 5,
      targetBatchMs: 2,
      clock: () => now,
    });
    expect(result.batch).toBe(100); // calibrated on the slowest: 2 ms ÷ 20 µs
    expect(result.ratio("slow", "fast")).toBe(0.05);
    expect(result.stats.fast!.medianOpsPerSecond).toBe(1_000_000);
    expect(result.stats.slow!.medianNsPerOp).toBe(20_000);
    expect(sinkCount()).toBeGreaterThan(before);
  });

  it("awaits async candidates", async () => {
    let done = 0;
    await compareAlternating({
      candidates: {
        wait: async () => {
          await new Promise((r) => setImmediate(r));
          done++;
          return {};
        },
      },
      rounds: 2,
      warmupRounds: 0,
      batch: 3,
      async: true,
    });
    expect(done).toBe(6);
  });

  it("rejects a bad round count", async () => {
    await expect(compareAlternating({ candidates: { a: () => 1 }, rounds: 0 })).rejects.toThrow(
      /rounds must be a positive integer, got 0/,
    );
  });
});

describe("command timing", () => {
  // Starts node four times (processes again and again: tagged slow): npm run test:all runs it.
  it("times commands in alternating rounds", { tags: ["slow"] }, async () => {
    const seen: string[] = [];
    const result = await compareCommands(
      {
        one: { command: process.execPath, args: ["-e", ""], cwd: repoRoot },
        two: { command: process.execPath, args: ["-e", ""], cwd: repoRoot },
      },
      2,
      (label) => seen.push(label),
    );
    expect(seen).toEqual(["one", "two", "two", "one"]);
    expect(result.one!.medianMs).toBeGreaterThan(0);
  });

  it("fails with the command's last output when it exits non-zero", async () => {
    await expect(
      timeCommand("broken", {
        command: process.execPath,
        args: ["-e", "console.error('boom here'); process.exit(3)"],
        cwd: repoRoot,
      }),
    ).rejects.toThrow(/broken .*exited with code 3; last output:\n\s+boom here/s);
  });
});

describe("npm run bench (bench/cli.ts)", () => {
  it("names a bad option, size or benchmark and exits 2 before measuring anything", async () => {
    const cases: [string[], string][] = [
      [["--fast"], "Unknown option '--fast'"],
      [["--only", "client,nope"], '--only: unknown benchmark "nope"; known: client, webhooks'],
      [["--size", "huge"], '--size must be one of tiny, quick, full, got "huge"'],
      [["--only"], "--only <value>' argument missing"],
      [["--quick", "--size", "tiny"], "--quick and --size tiny contradict each other"],
    ];
    for (const [argv, message] of cases) {
      const run = await runInProcess(benchCommand, argv);
      expect(run.code, argv.join(" ")).toBe(2);
      expect(run.stderr, argv.join(" ")).toContain(message);
      expect(run.stderr).not.toContain("bench: size");
    }
  });

  it("--help lists the options and every benchmark", async () => {
    const run = await runInProcess(benchCommand, ["--help"]);
    expect(run.code).toBe(0);
    for (const text of ["--quick", "--size", "--only", "--out", ...BENCHMARKS.map((b) => b.name)])
      expect(run.stdout).toContain(text);
  });

  it("runs the chosen benchmarks, prints each with its ratios, writes the file and says how long it took", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "partner-bench-cli-"));
    scratch.push(dir);
    const outFile = path.join(dir, "out.md");
    // The file holds another benchmark's results (and an older webhooks section): --only keeps the one, replaces the other.
    const earlier: RunSummary = {
      machine: { ...machineInfo(new Date("2025-01-02T03:04:05Z")), cpuModel: "Earlier CPU", cores: 2 },
      size: "full",
      totalMs: 1000,
      outcomes: [
        {
          name: "client",
          title: "Client per-call cost",
          ms: 5,
          result: {
            name: "client",
            title: "Client per-call cost",
            method: "Kept method.",
            figures: [{ label: "kept figure", value: 7, unit: "calls/s" }],
            ratios: [{ label: "kept ratio", value: 1.25, target: 1 }],
            notes: [],
          },
        },
        {
          name: "webhooks",
          title: "Webhook signing",
          ms: 5,
          result: {
            name: "webhooks",
            title: "Webhook signing",
            method: "Old method.",
            figures: [],
            ratios: [],
            notes: [],
          },
        },
      ],
    };
    writeFileSync(outFile, renderResults(earlier));
    const run = await runInProcess(benchCommand, ["--size", "tiny", "--only", "webhooks", "--out", outFile]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("bench: size tiny, only webhooks");
    expect(run.stdout).toMatch(/^✓ webhooks \(\d[^)]*\)\n {4}ours ÷ bare, 256 B, 1 secret \d+\.\d\dx/);
    expect(run.stderr).toMatch(
      /wrote .*out\.md: 1 of 1 benchmarks ran, \d+ target\(s\) missed, 1 other benchmark\(s\) kept from the file in \d/,
    );
    const written = readFileSync(outFile, "utf8");
    expect(written).toContain("(`webhooks`");
    expect(written).not.toContain("Old method.");
    expect(written).toContain("Kept method.");
    expect(written).toContain("| Client per-call cost | kept ratio | 1.25x | ≥ 1.00x | yes |");
    expect(written.indexOf("(`client`")).toBeLessThan(written.indexOf("(`webhooks`"));
  });

  // A process that loads every benchmark's modules (Chromium's driver, esbuild): 40 s was seen at load 13.
  it("exits 2 on a bad option when run as a process", { tags: ["slow"], timeout: 120_000 }, () => {
    const run = runScript("bench/cli.ts", ["--bogus"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("Unknown option '--bogus'");
    expect(run.stderr).toContain("npm run bench -- --help");
  });
});

const summary: RunSummary = {
  machine: { ...machineInfo(new Date("2025-01-02T03:04:05Z")), cpuModel: "Test CPU", cores: 2 },
  size: "full",
  totalMs: 65_000,
  outcomes: [
    {
      name: "client",
      title: "Client per-call cost",
      ms: 1234,
      result: {
        name: "client",
        title: "Client per-call cost",
        method: "Method text.",
        figures: [{ label: "ours | GET", value: 12345.6, unit: "calls/s" }],
        ratios: [
          { label: "met ratio", value: 0.95, target: 0.9 },
          { label: "missed ratio", value: 0.5, target: 0.9 },
          { label: "plain ratio", value: 1.5 },
        ],
        notes: ["Why it was missed."],
      },
    },
    { name: "mock", title: "Mock server", ms: 10, error: "Prism would not start" },
  ],
};

/** Medians, ratios, failed parts and paths in the tables. */
function resultTables(): void {
  it("shows the machine, each median, each ratio and whether targets are met", () => {
    const text = renderResults(summary);
    expect(text).toContain("| CPU | Test CPU |");
    expect(text).toContain("| Cores | 2 |");
    expect(text).toContain("| Date | 2025-01-02T03:04:05.000Z |");
    expect(text).toMatch(/\| Load average at start \(1, 5, 15 min\) \| [\d.]+, [\d.]+, [\d.]+ \|/);
    expect(text).toContain(`| Node | ${process.version} |`);
    expect(text).toContain("| ours \\| GET | 12,346 | calls/s |");
    expect(text).toContain("| Client per-call cost | met ratio | 0.95x | ≥ 0.90x | yes |");
    expect(text).toContain("| Client per-call cost | missed ratio | 0.50x | ≥ 0.90x | **no** |");
    expect(text).toContain("| plain ratio | 1.50x | – |");
    expect(text).toContain("- Why it was missed.");
    expect(text).toContain("Prism would not start");
    expect(text).toContain("1 benchmark(s) failed to run, in whole or in part**: mock");
    expect(text).not.toContain("Not the figures of record");
  });

  it("shows a benchmark's failed part beside its figures", () => {
    const outcome = summary.outcomes[0]!;
    const withError = {
      ...summary,
      outcomes: [{ ...outcome, result: { ...outcome.result!, errors: ["test: npm test exited with code 1"] } }],
    };
    const text = renderResults(withError);
    expect(text).toContain("**Failed part:**\n\n```text\ntest: npm test exited with code 1\n```");
    expect(text).toContain("| ours \\| GET | 12,346 | calls/s |");
    expect(text).toContain("1 benchmark(s) failed to run, in whole or in part**: client");
  });

  it("takes this machine's paths out", () => {
    const text =
      "sh -c redocly bundle -o /scratch/partner-bench-scratch-Ab12/x.yaml in /scratch/partner-bench-Zz9 (cwd /srv/repo/sub, /srv/repository, /home/u/.npm/x)";
    expect(scrubPaths(text, "/srv/repo", "/scratch", "/home/u")).toBe(
      "sh -c redocly bundle -o <tmp>/x.yaml in <tmp> (cwd ./sub, /srv/repository, ~/.npm/x)",
    );
  });
}

/** Sections replaced and kept, partial runs, numbers and targets. */
function mergedAndFormatted(): void {
  it("with a file from before, replaces the sections of the benchmarks run and keeps the others", () => {
    const mock = { name: "mock", title: "Mock server" };
    const before = renderResults({
      ...summary,
      outcomes: [
        summary.outcomes[0]!,
        {
          ...mock,
          ms: 20,
          result: {
            ...mock,
            method: "Mock method.",
            figures: [{ label: "mock figure", value: 3, unit: "requests/s" }],
            ratios: [{ label: "mock ratio", value: 0.7, target: 0.6 }],
            notes: ["Mock note."],
          },
        },
      ],
    });
    const client = summary.outcomes[0]!;
    const again: RunSummary = {
      ...summary,
      machine: { ...summary.machine, date: "2025-02-03T00:00:00.000Z" },
      size: "quick",
      only: ["client"],
      outcomes: [{ ...client, result: { ...client.result!, ratios: [{ label: "new ratio", value: 2, target: 1 }] } }],
    };
    const text = renderResults(again, { previous: before, names: ["client", "mock", "diff"] });
    // The client's section and Targets rows are this run's; the mock's are the file's, as they were.
    expect(text).toContain("| Client per-call cost | new ratio | 2.00x | ≥ 1.00x | yes |");
    expect(text).not.toContain("met ratio");
    expect(text).toContain("| Mock server | mock ratio | 0.70x | ≥ 0.60x | yes |");
    expect(text).toContain(
      "Mock method.\n\n| Measured | Median | Unit |\n|---|---:|---|\n| mock figure | 3 | requests/s |",
    );
    expect(text).toContain("- Mock note.");
    // Each section says when it was measured; the header, which sections are kept and why this is no record.
    expect(text).toContain("Measured on 2025-02-03T00:00:00.000Z, size quick, load average at start");
    expect(text).toContain("Measured on 2025-01-02T03:04:05.000Z, size full, load average at start");
    expect(text).toContain("1 section(s) are kept from earlier runs (mock)");
    expect(text).toContain("**Not the figures of record** (not measured at full size: client; never measured: diff)");
    expect(text.indexOf("(`client`")).toBeLessThan(text.indexOf("(`mock`"));
    // Written again with the same run, the file is the same: nothing is kept twice or lost.
    expect(renderResults(again, { previous: text, names: ["client", "mock", "diff"] })).toBe(text);
    // A file written before sections said when they were measured: the kept one gets its date from the file's head.
    const older = before.replace(/\nMeasured on [^\n]*\n/g, "\n");
    expect(older).not.toContain("Measured on");
    expect(renderResults(again, { previous: older, names: ["client", "mock"] })).toContain(
      "## Mock server (`mock`, 20 ms)\n\nMeasured on 2025-01-02T03:04:05.000Z, size full, load average at start",
    );
  });

  it("marks a partial run", () => {
    expect(renderResults({ ...summary, size: "quick" })).toContain('partial run (size "quick")');
    expect(renderResults({ ...summary, only: ["client"] })).toContain("partial run (only client)");
  });

  it("formats numbers and targets", () => {
    expect(formatNumber(1234567.8)).toBe("1,234,568");
    expect(formatNumber(12.345)).toBe("12.3");
    expect(formatNumber(0.12345)).toBe("0.123");
    expect(formatNumber(2)).toBe("2");
    expect(targetMet({ label: "x", value: 0.9, target: 0.9 })).toBe(true);
    expect(targetMet({ label: "x", value: 0.89, target: 0.9 })).toBe(false);
    expect(targetMet({ label: "x", value: 0.1 })).toBeUndefined();
  });
}

describe("RESULTS.md writer", () => {
  resultTables();
  mergedAndFormatted();
});

describe("benchmark fixtures", () => {
  it("builds webhook bodies of the exact size, and the bare verifier checks signatures", () => {
    for (const size of [256, 1024, 16384]) expect(webhookBody(size).byteLength).toBe(size);
    expect(() => webhookBody(10)).toThrow(/cannot be smaller than/);
    const body = webhookBody(256);
    const signature = createHmac("sha256", "s2").update(body).digest("hex");
    expect(bareVerify(body, signature, ["s1", "s2"])).toBe(true);
    expect(bareVerify(body, signature, ["s1"])).toBe(false);
    expect(bareVerify(webhookBody(257), signature, ["s2"])).toBe(false);
    expect(JSON.parse(body.toString("utf8")).type).toBe("company.kyc_status_changed");
  });

  it("the client, plain openapi-fetch and hand-written fetch send the same requests", async () => {
    await expect(assertSameRequests()).resolves.toBeUndefined();
    const seen: string[] = [];
    const callers = makeCallers(
      stubFetch((request) => seen.push(`${request.method} ${request.url} ${request.companyId}`)),
    );
    await callers.get.ours();
    expect(seen).toEqual(["GET http://127.0.0.1:9/bench/v1/cards?page=2&limit=20 01JD8X4M6Q2V7R9T3W5Y0Z1A2B"]);
  });

  it("the consumer file calls every operation of the contract once", () => {
    const document = JSON.parse(readFileSync(path.join(repoRoot, "generated", "openapi.json"), "utf8"));
    const { source, operations } = consumerSource(document, "partner-api-client");
    // The contract's count, never typed here: a new operation is called by the consumer file without a change.
    const count = listOperations(document).length;
    expect(operations).toBe(count);
    expect(source.match(/unwrap\(await (client|company)\.(GET|POST|PATCH|PUT|DELETE)\(/g)).toHaveLength(count);
    expect(source).toContain('client.GET("/transactions/{transactionId}"');
    expect(source).toContain('company.POST("/v1/cards", { body: {');
  });

  it("reads tsc's extended diagnostics", () => {
    const output =
      "Files:  10\nInstantiations:   66658\nMemory used:   118752K\nCheck time:   1.25s\nTotal time:   2.50s\n";
    expect(parseDiagnostics(output)).toEqual({
      checkMs: 1250,
      totalMs: 2500,
      instantiations: 66658,
      memoryKiB: 118752,
    });
    expect(() => parseDiagnostics("nothing")).toThrow(/no "Check time" line/);
  });

  it.runIf(process.platform === "linux")("reads a process's memory from /proc", () => {
    const memory = processMemoryMiB(process.pid)!;
    expect(memory.rss).toBeGreaterThan(10);
    expect(memory.peak).toBeGreaterThanOrEqual(memory.rss);
    expect(processMemoryMiB(-1)).toBeUndefined();
  });

  // Copies the whole repository, its git history included (seconds of file copying): npm run test:all runs it.
  it("the sandbox is a copy with history, node_modules linked, and no build output or scratch", {
    tags: ["slow"],
  }, async () => {
    const dir = await makeSandbox(repoRoot);
    scratch.push(dir);
    expect(existsSync(path.join(dir, "openapi", "openapi.yaml"))).toBe(true);
    expect(existsSync(path.join(dir, "node_modules", "openapi-fetch", "package.json"))).toBe(true);
    // The workspace packages are the copy's own, not the repository's.
    expect(realpathSync(path.join(dir, "node_modules", "partner-api-devkit"))).toBe(
      realpathSync(path.join(dir, "devkit")),
    );
    expect(realpathSync(path.join(dir, "node_modules", "partner-api-client"))).toBe(realpathSync(dir));
    expect(existsSync(path.join(dir, ".git"))).toBe(true);
    expect(existsSync(path.join(dir, ".tmp"))).toBe(false);
    expect(existsSync(path.join(dir, "dist"))).toBe(false);
  });
});
