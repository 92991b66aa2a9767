/**
 * `npm run test:runtimes`: the client scenario (scenario.ts) in every runtime of the matrix (runtimes/package.json,
 * installed on demand: scripts/lib/runtimes.ts) and in Chromium, then the devkit's smoke test (devkit-smoke.ts) under
 * each Node. One line per runtime with its version and the time it took; exit 1 when any fails. Under CI a runtime
 * or browser that is missing is a failure; elsewhere Chromium may be missing (a skip, said so), the matrix never is
 * (it is installed). See `npm run test:runtimes -- --help`.
 */
import { accessSync, constants } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { defineCommand, formatDuration, isEntryPoint, JobFailure, main, UsageError } from "partner-api-devkit/cli";
import { chromiumPath, hasChromium } from "../../scripts/lib/chromium.ts";
import {
  checkVersion,
  ensureMatrix,
  installedMatrix,
  type Matrix,
  matrixDir,
  pinnedVersion,
  type RuntimeId,
  runtimeSpec,
  underCI,
} from "../../scripts/lib/runtimes.ts";
import { type DevkitBuild, makeDevkit, refusedDevkit, smokeDevkit } from "./devkit-smoke.ts";
import type { ScenarioConfig, ScenarioReport } from "./scenario.ts";
import { type StubServer, startStubServer } from "./stub-server.ts";
import { TARGETS, type Target, WORKERD_WITHOUT_NODE_GLOBALS } from "./target-names.ts";
import { checkStubLog, type ModuleRuntime, runChromium, runModule, runWorkerd, scenarioConfig } from "./targets.ts";
import { makeWorkspace, type Workspace } from "./workspace.ts";

/** What `--from-path` takes from PATH instead of the matrix (the GitHub workflow's set-up actions install them). */
const ON_PATH: Partial<Record<RuntimeId, string>> = {
  node20: "node",
  node22: "node",
  node24: "node",
  node26: "node",
  bun: "bun",
  deno: "deno",
};

export interface Outcome {
  target: Target;
  ok: boolean;
  skipped?: string;
  line: string;
  error?: string;
}

interface Context {
  matrix: () => Promise<Matrix>;
  fromPath: boolean;
  workspace: Workspace;
  stub: StubServer;
  devkit: () => Promise<DevkitBuild>;
  work: string;
}

/** Every executable `name` on PATH, in PATH's order. */
function allOnPath(name: string): string[] {
  const found: string[] = [];
  for (const dir of (process.env.PATH ?? "").split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (!found.includes(candidate)) found.push(candidate);
    } catch {
      // not here
    }
  }
  return found;
}

/** The binary and version of a runtime: from PATH with --from-path (checked against the pin), else the matrix. */
async function runtimeBinary(id: RuntimeId, context: Context): Promise<{ path: string; version: string }> {
  const onPath = ON_PATH[id];
  if (context.fromPath && onPath) {
    // The first one at the pin: a workflow sets up the Node under test, then Node 24 (.nvmrc) for the tools, and
    // both are on PATH.
    const found = allOnPath(onPath);
    if (found.length === 0) throw new Error(`--from-path: no ${onPath} on PATH for ${id}`);
    const spec = runtimeSpec(id);
    const pinned = await pinnedVersion(spec);
    const refusals: string[] = [];
    for (const candidate of found) {
      try {
        return { path: candidate, version: await checkVersion(spec, candidate, pinned) };
      } catch (error) {
        refusals.push((error as Error).message);
      }
    }
    throw new Error(`--from-path: no ${onPath} on PATH is the pinned ${id}: ${refusals.join("; ")}`);
  }
  const installed = (await context.matrix()).runtimes.get(id)!;
  return { path: installed.path, version: installed.version };
}

function scenarioLine(name: string, version: string, report: ScenarioReport): string {
  return `${name.replace(/ \d+$/, "")} ${version}: ${report.checks.length} checks, the ${report.root} root`;
}

async function runScenarioTarget(target: Target, context: Context): Promise<string> {
  const { stub, workspace } = context;
  const verified = (config: ScenarioConfig, report: ScenarioReport) => {
    const problems = checkStubLog(stub, config);
    if (problems.length > 0) throw new Error(problems.join("; "));
    return report;
  };
  if (target === "chromium") {
    const config = scenarioConfig(stub, target, false);
    const { report, version } = await runChromium(workspace, stub, config);
    return scenarioLine("Chromium", version, verified(config, report));
  }
  const id = target as RuntimeId;
  const { path: binary, version } = await runtimeBinary(id, context);
  const spec = runtimeSpec(id);
  if (target === "workerd") {
    const config = scenarioConfig(stub, target, false);
    const report = await runWorkerd(binary, version, workspace, config, verified);
    return `${scenarioLine(spec.name, version, report)}, compatibility dates ${version} and ${WORKERD_WITHOUT_NODE_GLOBALS}`;
  }
  const kind: ModuleRuntime = target === "bun" ? "bun" : target === "deno" ? "deno" : "node";
  const config = scenarioConfig(stub, target, true);
  return scenarioLine(spec.name, version, verified(config, await runModule(kind, target, binary, workspace, config)));
}

async function runTarget(target: Target, context: Context): Promise<Outcome> {
  const started = performance.now();
  const took = () => formatDuration(performance.now() - started);
  if (target === "chromium" && !hasChromium()) {
    const why = `no Chromium at ${chromiumPath()} (apt-get install -y chromium, or set CHROMIUM_PATH)`;
    if (underCI())
      return { target, ok: false, line: `✗ chromium: ${why}; under CI a browser may not be skipped`, error: why };
    return { target, ok: true, skipped: why, line: `- chromium SKIPPED: ${why}` };
  }
  try {
    const what = target.startsWith("devkit-refused-")
      ? await refusedDevkit(
          await context.devkit(),
          await runtimeBinary(target.slice("devkit-refused-".length) as RuntimeId, context),
          context.work,
        )
      : target.startsWith("devkit-")
        ? await smokeDevkit(
            await context.devkit(),
            await runtimeBinary(target.slice("devkit-".length) as RuntimeId, context),
            context.work,
          )
        : await runScenarioTarget(target, context);
    return { target, ok: true, line: `✓ ${target.padEnd(14)} ${what} (${took()})` };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      target,
      ok: false,
      line: `✗ ${target.padEnd(14)} FAILED after ${took()}: ${message.split("\n")[0]}`,
      error: message,
    };
  }
}

function parseOnly(lists: string[] | undefined): Target[] {
  if (lists === undefined) return [...TARGETS];
  const chosen = lists.flatMap((list) => list.split(",").map((name) => name.trim())).filter(Boolean);
  const unknown = chosen.filter((name) => !(TARGETS as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new UsageError(
      `--only: unknown target ${unknown.map((name) => JSON.stringify(name)).join(", ")}; known: ${TARGETS.join(", ")}`,
    );
  if (chosen.length === 0) throw new UsageError("--only needs at least one target");
  return TARGETS.filter((target) => chosen.includes(target));
}

export const runtimesCommand = defineCommand({
  name: "npm run test:runtimes --",
  summary: "run the client scenario in every runtime of the matrix and Chromium, and the devkit under each Node",
  usage: `Usage: npm run test:runtimes [-- [--only target[,target…]] [--from-path] [--install | --list]]

Targets: ${TARGETS.join(", ")}

Options:
  --only <targets>  run only these (repeatable)
  --from-path       take node, bun and deno from PATH (as GitHub's set-up actions install them): the first one
                    answering the version runtimes/package.json pins; workerd and TypeScript 7 still come from the matrix
  --install         install the matrix into its cache folder if needed, check every binary answers --version, and stop
  --list            print each runtime of the installed matrix: id, version and binary (tab-separated), and stop

The matrix (runtimes/package.json, about 1.1 GB) is installed on demand into PARTNER_API_RUNTIMES_DIR, else
~/.cache/partner-api-runtimes/, never into the repository. Under CI (the CI variable set) a runtime or a browser
that is missing fails the run.

Exit codes: 0 every target passed, 1 one failed, 2 bad input, 3 a bug.`,
  options: {
    only: { type: "string", multiple: true },
    "from-path": { type: "boolean" },
    install: { type: "boolean" },
    list: { type: "boolean" },
  },
  async run({ values, io }) {
    if (values.install && values.list) throw new UsageError("--install and --list: give one of them");
    if (values.list) {
      const matrix = await installedMatrix();
      if (!matrix)
        throw new JobFailure(
          `the runtime matrix is not installed in ${await matrixDir()} (npm run test:runtimes -- --install)`,
        );
      for (const runtime of matrix.runtimes.values()) io.out(`${runtime.spec.id}\t${runtime.version}\t${runtime.path}`);
      return `${matrix.runtimes.size} runtimes in ${matrix.dir}`;
    }
    const targets = parseOnly(values.only);
    const progress = (message: string) => io.err(`  ${message}`);
    let matrix: Promise<Matrix & { ms?: number }> | undefined;
    const getMatrix = () => (matrix ??= ensureMatrix(progress));
    if (values.install) {
      const installed = await getMatrix();
      for (const runtime of installed.runtimes.values())
        io.out(
          `✓ ${runtime.spec.id.padEnd(12)} ${runtime.spec.name} ${runtime.version} answers --version (${runtime.path})`,
        );
      return installed.ms === undefined
        ? `the runtime matrix was already installed in ${installed.dir}`
        : `installed the runtime matrix into ${installed.dir} (npm ci and the checks: ${formatDuration(installed.ms)})`;
    }
    const started = performance.now();
    const work = await mkdtemp(path.join(os.tmpdir(), "partner-api-runtimes-"));
    const stub = await startStubServer();
    const outcomes: Outcome[] = [];
    try {
      io.err(`test:runtimes: ${targets.join(", ")}`);
      const workspace = await makeWorkspace(work);
      io.err(
        `  built the client package and the Worker and browser bundles (${formatDuration(performance.now() - started)})`,
      );
      let devkit: Promise<DevkitBuild> | undefined;
      const context: Context = {
        matrix: getMatrix,
        fromPath: values["from-path"] ?? false,
        workspace,
        stub,
        devkit: () => (devkit ??= makeDevkit(work, workspace)),
        work,
      };
      // One at a time: each line's time is the runtime's own, not a share of a loaded machine.
      for (const target of targets) {
        const outcome = await runTarget(target, context);
        outcomes.push(outcome);
        io.out(outcome.line);
        if (outcome.error?.includes("\n")) io.err(outcome.error.replace(/^/gm, "    "));
      }
    } finally {
      await stub.close();
      await rm(work, { recursive: true, force: true });
    }
    const failed = outcomes.filter((outcome) => !outcome.ok).length;
    const skipped = outcomes.filter((outcome) => outcome.skipped).length;
    io.out(`${outcomes.length - failed - skipped} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
    if (failed > 0) throw new JobFailure(`${failed} of ${outcomes.length} runtime targets failed`);
    return `${outcomes.length} runtime targets`;
  },
});

if (isEntryPoint(import.meta.url)) await main(runtimesCommand);
