/**
 * Runs the real `redocly respect` (the installed @redocly/cli, as a child process, asynchronously so that a server
 * in this process can answer it) on Arazzo files, and reads its JSON report.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { redoclyCliPath } from "../../scripts/lib/docs/build.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";

/** Every check Respect makes, at error (its default, said out loud). */
export const EVERY_CHECK_AT_ERROR = [
  "SUCCESS_CRITERIA_CHECK",
  "STATUS_CODE_CHECK",
  "SCHEMA_CHECK",
  "CONTENT_TYPE_CHECK",
  "GLOBAL_TIMEOUT_ERROR",
  "MAX_STEPS_REACHED_ERROR",
  "NETWORK_ERROR",
  "UNEXPECTED_ERROR",
]
  .map((check) => `${check}=error`)
  .join(",");

export interface RespectCheck {
  name: string;
  passed: boolean;
  message: string;
  severity: string;
}

export interface RespectStep {
  type: "step" | "workflow";
  stepId?: string;
  workflowId?: string;
  status?: string;
  checks?: RespectCheck[];
  executedSteps?: RespectStep[];
}

export interface RespectRun {
  code: number;
  output: string;
  /** Respect's --json-output: files → executed workflows → steps (a step running a workflow nests its steps). */
  report: { status: string; files: Record<string, { executedWorkflows: RespectStep[] }> };
}

export async function runRespect(
  file: string,
  options: { inputs: Record<string, string>; servers: Record<string, string>; workflow?: string },
): Promise<RespectRun> {
  const work = await mkdtemp(path.join(os.tmpdir(), "respect-"));
  const reportFile = path.join(work, "report.json");
  const args = [
    redoclyCliPath(),
    "respect",
    file,
    ...Object.entries(options.inputs).flatMap(([name, value]) => ["--input", `${name}=${value}`]),
    ...Object.entries(options.servers).flatMap(([name, url]) => ["--server", `${name}=${url}`]),
    ...(options.workflow ? ["--workflow", options.workflow] : []),
    "--severity",
    EVERY_CHECK_AT_ERROR,
    "--json-output",
    reportFile,
  ];
  try {
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve, reject) => {
      const child = spawn(process.execPath, args, {
        cwd: repoRoot,
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let text = "";
      child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
      child.on("error", reject);
      child.on("close", (status) => resolve({ code: status ?? 1, output: text }));
    });
    const report = JSON.parse(await readFile(reportFile, "utf8").catch(() => '{"status":"none","files":{}}'));
    return { code, output, report };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Every step Respect ran, nested workflows' steps included, with the workflow each belongs to. */
export function respectSteps(steps: readonly RespectStep[]): RespectStep[] {
  return steps.flatMap((step) => (step.type === "workflow" ? respectSteps(step.executedSteps ?? []) : [step]));
}
