/**
 * Every benchmark once at tiny size, so none can rot (about a minute: a slow suite). The
 * harness's own tests are test/bench/bench.test.ts.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { NESTED_ENV } from "../../bench/context.ts";
import { BENCHMARKS, runBenchmarks } from "../../bench/index.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";

const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

// The pipeline benchmark runs npm scripts with PARTNER_BENCH_NESTED set: never start benchmarks from there.
describe.skipIf(process.env[NESTED_ENV])("every benchmark at tiny size", () => {
  it("runs each benchmark once and writes RESULTS.md with each of them", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "partner-bench-test-"));
    scratch.push(dir);
    const outFile = path.join(dir, "RESULTS.md");
    const progress: string[] = [];
    const summary = await runBenchmarks({ size: "tiny", repoRoot, outFile, progress: (m) => progress.push(m) });
    const errors = summary.outcomes.flatMap((o) =>
      o.error ? [`${o.name}: ${o.error}`] : (o.result?.errors ?? []).map((e) => `${o.name}: ${e}`),
    );
    expect(errors).toEqual([]);
    expect(summary.outcomes.map((o) => o.name)).toEqual(BENCHMARKS.map((b) => b.name));
    for (const outcome of summary.outcomes) {
      expect(outcome.result!.figures.length, outcome.name).toBeGreaterThan(0);
      for (const figure of outcome.result!.figures) {
        expect(Number.isFinite(figure.value), `${outcome.name}: ${figure.label}`).toBe(true);
        expect(figure.value, `${outcome.name}: ${figure.label}`).toBeGreaterThanOrEqual(0);
      }
      for (const ratio of outcome.result!.ratios)
        expect(ratio.value, `${outcome.name}: ${ratio.label}`).toBeGreaterThan(0);
    }
    const targets = Object.fromEntries(
      summary.outcomes
        .map((o) => [o.name, o.result!.ratios.filter((r) => r.target !== undefined).length] as const)
        .filter(([, count]) => count > 0),
    );
    // sandbox-overhead: every operation of the contract ÷ bare node:http, held to the target in memory and with
    // --state (group commit); a transaction per request is measured beside them without one.
    const overhead = summary.outcomes.find((o) => o.name === "sandbox-overhead")!.result!.ratios;
    const targeted = new Set(overhead.filter((r) => r.target !== undefined).map((r) => r.label));
    const contract = JSON.parse(readFileSync(path.join(repoRoot, "generated/openapi.json"), "utf8")) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const operationIds = Object.values(contract.paths).flatMap((item) =>
      Object.values(item).flatMap((operation) => (operation?.operationId ? [operation.operationId] : [])),
    );
    // A label may say more after the operation ("listCards (… cards, a page of 20)").
    for (const side of ["sandbox", "sandbox --state"])
      for (const operationId of operationIds) {
        const label = `${side} ÷ bare node:http requests/s, ${operationId}`;
        expect(
          [...targeted].some((each) => each === label || each.startsWith(`${label} `)),
          `${label} has a target`,
        ).toBe(true);
      }
    const { "sandbox-overhead": _overhead, ...others } = targets;
    // client GET and POST, each bare and like for like; webhooks at 3 sizes × 1 and 2 secrets;
    // sandbox GET, two start-ups, memory; diff: the gate and its load; size: the createPartnerClient budget;
    // dashboard: page load and frames at 500 requests/s; verify: the full run under 10 s; proxy: its overhead;
    // persistence: POST growth, GET p99 while writing, restart; deliveries: a silent receiver's cost to others
    expect(others).toEqual({
      client: 4,
      webhooks: 6,
      sandbox: 4,
      persistence: 3,
      deliveries: 2,
      dashboard: 2,
      diff: 2,
      size: 1,
      verify: 1,
      proxy: 2,
    });
    const pipeline = summary.outcomes.find((o) => o.name === "pipeline")!.result!;
    expect(pipeline.figures.map((f) => f.label).join("\n")).not.toContain("npm test");
    const tests = summary.outcomes.find((o) => o.name === "tests")!.result!;
    expect(tests.figures.map((f) => f.label)).toEqual(["`npm test -- test/layout/versions.test.ts` (one file)"]);
    expect(tests.notes.join(" ")).toContain('`npm test` and `bash .ci/run` timed only at size full (size "tiny"');
    expect(pipeline.figures.map((f) => f.label)).toContain("`npm run bundle`");
    expect(pipeline.figures.map((f) => f.label).join("\n")).not.toContain("`npm run docs`");
    expect(pipeline.notes.join(" ")).toContain('Only `npm run bundle` timed at size "tiny"');
    expect(progress.some((m) => m.startsWith(`[1/${BENCHMARKS.length}] client`))).toBe(true);
    const text = readFileSync(outFile, "utf8");
    expect(text).not.toContain(repoRoot);
    expect(text).not.toContain(`${os.tmpdir()}/partner-bench`);
    for (const benchmark of BENCHMARKS) expect(text).toContain(`(\`${benchmark.name}\``);
    expect(text).toContain('partial run (size "tiny")');
  }, 240_000);

  it("loads the generated SDKs of the client benchmark under plain node, as npm run bench runs it", async () => {
    // vitest resolves the generated TypeScript's `.js` imports to `.ts`; node's type stripping does not.
    const script = `const { generateSdks } = await import(${JSON.stringify(path.join(repoRoot, "bench", "client-sdks.ts"))});
const sdks = await generateSdks(${JSON.stringify(repoRoot)}, () => {});
console.log(JSON.stringify([typeof sdks.heyApi.listCards, typeof sdks.heyApi.createClient, typeof sdks.orval.createCard]));`;
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "--eval", script], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    expect(JSON.parse(stdout)).toEqual(["function", "function", "function"]);
  }, 120_000);
});
