/**
 * Pipeline: wall time of each npm script against the bare CLI of the tool it wraps, on the same input, run
 * in a copy of the repository (so a run never writes into the working tree).
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type Benchmark, NESTED_ENV } from "./context.ts";
import { type CommandSpec, compareCommands } from "./harness.ts";
import type { BenchResult, Figure } from "./results.ts";

export interface PipelineStep {
  name: string;
  /** The npm script, run as a user runs it. */
  script: string;
  /** What the bare side runs (a shell command line, tools from node_modules/.bin). */
  bare: (scratch: string) => string;
  /** How the bare side differs, if at all. */
  note: string;
  /** Where the bare side runs: the repository copy, unless the tool must not see its config. */
  bareCwd?: (sandbox: string, scratch: string) => string;
}

const PIPELINE_STEPS: PipelineStep[] = [
  {
    name: "lint",
    script: "lint",
    bare: (s) =>
      `redocly lint openapi/openapi.yaml && redocly bundle openapi/openapi.yaml -o ${s}/lint-bundle.yaml && spectral lint ${s}/lint-bundle.yaml -r .spectral.yaml`,
    note: "bare: `redocly lint` + `redocly bundle` + `spectral lint -r .spectral.yaml` (three processes); ours does the same work in one",
  },
  {
    name: "bundle",
    script: "bundle",
    bare: (s) => `redocly bundle openapi/openapi.yaml -o ${s}/openapi.yaml`,
    note: "bare: `redocly bundle` to YAML; ours also writes the JSON form and compares both with the committed files",
  },
  {
    name: "generate",
    script: "generate",
    bare: (s) => `openapi-typescript "$BENCH_SANDBOX/generated/openapi.json" -o ${s}/schema.d.ts`,
    // openapi-typescript's CLI reads redocly.yaml's `apis` when it finds one, and then ignores its input argument.
    bareCwd: (_sandbox, scratch) => scratch,
    note: "bare: `openapi-typescript generated/openapi.json -o …` (run outside the repository so it does not read redocly.yaml); ours also checks the bundle and writes generated/contract.ts",
  },
  {
    name: "docs",
    script: "docs",
    bare: (s) => `redocly build-docs generated/openapi.yaml -o ${s}/index.html`,
    note: "bare: `redocly build-docs` (its page loads the renderer from a CDN); ours adds code samples and inlines the renderer",
  },
];

type Env = Record<string, string>;
type OnRun = (label: string, round: number, total: number, ms: number) => void;
/** One job timed as `npm run <script>` and bare. */
interface TimedStep {
  name: string;
  ours: CommandSpec;
  bare: CommandSpec;
  note: string;
  rounds: number;
}
/** What one measuring step adds to the result. */
type Findings = Pick<BenchResult, "figures" | "ratios" | "notes"> & { errors: string[] };

/** npm's and node's start-up, each alone: what every `npm run x` pays whatever x is. Returns their sum. */
async function measureStartUp(dir: string, env: Env, rounds: number, onRun: OnRun, figures: Figure[]): Promise<number> {
  // npm's own start-up is part of every `npm run x`, whatever x is: measured alone for reference.
  const npmAlone = await compareCommands(
    { "npm run (no script: lists them)": { command: "npm", args: ["run"], cwd: dir, env } },
    rounds,
    onRun,
  );
  figures.push({
    label: "npm start-up (`npm run` listing the scripts)",
    value: npmAlone["npm run (no script: lists them)"]!.medianMs,
    unit: "ms",
  });
  // Every script runs on node, which strips the TypeScript's types as it loads: its start-up, also alone.
  const nodeAlone = await compareCommands(
    { "node of an empty script": { command: process.execPath, args: ["--eval", ""], cwd: dir, env } },
    rounds,
    onRun,
  );
  figures.push({
    label: 'node start-up (`node --eval ""`)',
    value: nodeAlone["node of an empty script"]!.medianMs,
    unit: "ms",
  });
  return npmAlone["npm run (no script: lists them)"]!.medianMs + nodeAlone["node of an empty script"]!.medianMs;
}

/** The steps to time at this size (the fast command only in a full run that is not itself inside a test run). */
function timedSteps(
  size: string,
  dir: string,
  scratch: string,
  env: Env,
  rounds: number,
  notes: string[],
): TimedStep[] {
  // At size tiny (the test that keeps every benchmark from rotting) one step proves the comparison runs; each
  // script is tested on its own, and `npm run docs` alone takes most of a minute.
  const timed = size === "tiny" ? PIPELINE_STEPS.filter((step) => step.script === "bundle") : PIPELINE_STEPS;
  if (timed.length < PIPELINE_STEPS.length)
    notes.push(
      `Only \`npm run bundle\` timed at size "tiny"; ${PIPELINE_STEPS.filter((step) => !timed.includes(step))
        .map((step) => `\`npm run ${step.script}\``)
        .join(", ")} only at sizes quick and full.`,
    );
  const steps: TimedStep[] = timed.map((step) => ({
    name: step.name,
    ours: { command: "npm", args: ["run", step.script], cwd: dir, env },
    bare: { command: "sh", args: ["-c", step.bare(scratch)], cwd: step.bareCwd?.(dir, scratch) ?? dir, env },
    note: step.note,
    rounds,
  }));
  return steps;
}

/** One step, ours and bare alternating; a failure is recorded and the other steps still run. */
async function measureStep(
  step: TimedStep,
  startUp: number,
  onRun: OnRun,
  progress: (message: string) => void,
  { figures, ratios, notes, errors }: Findings,
): Promise<void> {
  // One failing step (say, a red test suite) is recorded; the other steps are still measured.
  const result = await compareCommands(
    { [`npm run ${step.name}`]: step.ours, [`bare ${step.name}`]: step.bare },
    step.rounds,
    onRun,
  ).catch((error: Error) => {
    errors.push(`${step.name}: ${error.message}`);
    progress(`pipeline ${step.name} failed: ${error.message.split("\n")[0]}`);
    return undefined;
  });
  if (!result) return;
  const ours = result[`npm run ${step.name}`]!.medianMs;
  const bare = result[`bare ${step.name}`]!.medianMs;
  figures.push({
    label: `\`npm run ${step.name}\``,
    value: ours,
    unit: "ms",
  });
  figures.push({ label: `bare ${step.name} (${step.note.replace(/^bare: /, "")})`, value: bare, unit: "ms" });
  ratios.push({ label: `${step.name}: ours ÷ bare wall time (lower is better)`, value: ours / bare });
  const extra = ours - bare;
  notes.push(
    `${step.name}: ours takes ${Math.round(extra)} ms ${extra >= 0 ? "more" : "less"} than bare; npm and node start-up account for ` +
      `${Math.round(startUp)} ms of any script. ${step.note.replace(/^bare: /, "Bare: ")}.`,
  );
}

export const pipelineBenchmark: Benchmark = {
  name: "pipeline",
  title: "Pipeline",
  async run({ size, sandbox, progress }) {
    const dir = await sandbox();
    const scratch = await mkdtemp(path.join(os.tmpdir(), "partner-bench-scratch-"));
    const env = {
      [NESTED_ENV]: "1",
      NO_COLOR: "1",
      FORCE_COLOR: "0",
      BENCH_SANDBOX: dir,
      PATH: `${path.join(dir, "node_modules", ".bin")}${path.delimiter}${process.env.PATH ?? ""}`,
    };
    const rounds = size === "full" ? 5 : size === "quick" ? 3 : 1;
    const findings: Findings = { figures: [], ratios: [], notes: [], errors: [] };
    const onRun: OnRun = (label, round, total, ms) =>
      progress(`pipeline ${label}: round ${round}/${total} ${Math.round(ms)} ms`);
    try {
      const startUp = await measureStartUp(dir, env, rounds, onRun, findings.figures);
      for (const step of timedSteps(size, dir, scratch, env, rounds, findings.notes))
        await measureStep(step, startUp, onRun, progress, findings);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
    return {
      name: this.name,
      title: this.title,
      method:
        "Wall time of each `npm run <script>` (npm start-up included) and of the bare CLI call(s) doing the same job on the same " +
        "input, in a throwaway copy of the repository (node_modules linked), alternating ours/bare round by round; medians. " +
        "A ratio near 1 means our wrapping adds little; npm's own start-up is listed separately.",
      ...findings,
    };
  },
};
