/**
 * What each benchmark reports, and bench/RESULTS.md written from it.
 */

import { formatDuration } from "partner-api-devkit/cli";
import type { BenchSize } from "./harness.ts";
import type { MachineInfo } from "./machine.ts";

export interface Figure {
  /** What was measured, e.g. "this client, GET /v1/cards". */
  label: string;
  /** The median (or the single value, for sizes and counts). */
  value: number;
  unit: string;
}

export interface Ratio {
  label: string;
  value: number;
  /** The lowest acceptable value, when the issue sets a target. */
  target?: number;
}

export interface BenchResult {
  name: string;
  title: string;
  /** How it was measured, in a sentence or two. */
  method: string;
  figures: Figure[];
  ratios: Ratio[];
  /** Findings, caveats, and the explanation of every missed target. */
  notes: string[];
  /** Parts that failed while the rest of the benchmark still ran (each message names the part). */
  errors?: string[];
}

export interface BenchOutcome {
  name: string;
  title: string;
  result?: BenchResult;
  /** Why the benchmark failed to run. */
  error?: string;
  ms: number;
}

export interface RunSummary {
  machine: MachineInfo;
  size: BenchSize;
  /** Benchmarks chosen with --only, or undefined for all of them. */
  only?: string[];
  totalMs: number;
  outcomes: BenchOutcome[];
}

export function targetMet(ratio: Ratio): boolean | undefined {
  return ratio.target === undefined ? undefined : ratio.value >= ratio.target;
}

/** A number for a table: thousands separated, a sensible count of decimals. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  // Counts and byte sizes are whole numbers: no decimals for them.
  const digits = Number.isInteger(value) ? 0 : abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

/**
 * Takes this machine's paths out of a text meant to be committed: the repository becomes `.`, the run's
 * temporary folders `<tmp>/…`, and the user's home `~`.
 */
export function scrubPaths(text: string, repoRoot: string, tmpDir: string, homeDir: string): string {
  const escapeRegExp = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  let result = text.replace(new RegExp(`${escapeRegExp(tmpDir)}/partner-bench-[^/\\s"'\`]+`, "g"), "<tmp>");
  result = result.replace(new RegExp(`${escapeRegExp(repoRoot)}(?=[/\\s"'\`]|$)`, "g"), ".");
  if (homeDir.length > 1) result = result.replace(new RegExp(`${escapeRegExp(homeDir)}(?=/)`, "g"), "~");
  return result;
}

/** The Markdown of bench/RESULTS.md. */
export function renderResults(summary: RunSummary): string {
  const { machine } = summary;
  const lines: string[] = [];
  lines.push("# Benchmark results", "");
  lines.push("Written by `npm run bench` (bench/cli.ts); do not edit by hand. Figures are medians over");
  lines.push("alternating rounds in one process; ratios compare candidates measured side by side.", "");
  if (summary.size !== "full" || summary.only) {
    const why = [
      summary.size !== "full" ? `size "${summary.size}"` : "",
      summary.only ? `only ${summary.only.join(", ")}` : "",
    ]
      .filter(Boolean)
      .join(", ");
    lines.push(
      `> **Not the figures of record**: this was a partial run (${why}). Run \`npm run bench\` for the full set.`,
      "",
    );
  }
  lines.push("## Machine", "");
  lines.push("| | |", "|---|---|");
  lines.push(`| CPU | ${cell(machine.cpuModel)} |`);
  lines.push(`| Cores | ${machine.cores} |`);
  lines.push(`| Memory | ${formatNumber(machine.memoryGiB)} GiB |`);
  lines.push(`| OS | ${cell(machine.os)} |`);
  lines.push(`| Node | ${machine.node} |`);
  lines.push(`| Date | ${machine.date} |`);
  lines.push(`| Load average at start (1, 5, 15 min) | ${machine.loadAverage.map((v) => v.toFixed(2)).join(", ")} |`);
  lines.push(`| Size | ${summary.size} |`);
  lines.push(`| Total time | ${formatDuration(summary.totalMs)} |`);
  lines.push("");

  const targets = summary.outcomes.flatMap((o) =>
    (o.result?.ratios ?? []).filter((r) => r.target !== undefined).map((r) => ({ o, r })),
  );
  lines.push("## Targets", "");
  if (targets.length === 0) lines.push("No benchmark with a target ran.");
  else {
    lines.push("| Benchmark | Ratio | Value | Target | Met |", "|---|---|---:|---:|---|");
    for (const { o, r } of targets) {
      lines.push(
        `| ${cell(o.title)} | ${cell(r.label)} | ${r.value.toFixed(2)}x | ≥ ${r.target!.toFixed(2)}x | ${targetMet(r) ? "yes" : "**no**"} |`,
      );
    }
  }
  const failed = summary.outcomes.filter((o) => o.error || (o.result?.errors?.length ?? 0) > 0);
  if (failed.length > 0)
    lines.push(
      "",
      `**${failed.length} benchmark(s) failed to run, in whole or in part**: ${failed.map((o) => o.name).join(", ")} (see below).`,
    );
  lines.push("");

  for (const outcome of summary.outcomes) {
    lines.push(`## ${outcome.title} (\`${outcome.name}\`, ${formatDuration(outcome.ms)})`, "");
    if (outcome.error || !outcome.result) {
      lines.push("**Failed to run:**", "", "```text", outcome.error ?? "no result", "```", "");
      continue;
    }
    const result = outcome.result;
    lines.push(result.method, "");
    if (result.figures.length > 0) {
      lines.push("| Measured | Median | Unit |", "|---|---:|---|");
      for (const figure of result.figures)
        lines.push(`| ${cell(figure.label)} | ${formatNumber(figure.value)} | ${cell(figure.unit)} |`);
      lines.push("");
    }
    if (result.ratios.length > 0) {
      lines.push("| Ratio | Value | Target |", "|---|---:|---|");
      for (const ratio of result.ratios) {
        const met = targetMet(ratio);
        const target =
          ratio.target === undefined ? "–" : `≥ ${ratio.target.toFixed(2)}x: ${met ? "met" : "**missed**"}`;
        lines.push(`| ${cell(ratio.label)} | ${ratio.value.toFixed(2)}x | ${target} |`);
      }
      lines.push("");
    }
    for (const note of result.notes) lines.push(`- ${note}`);
    if (result.notes.length > 0) lines.push("");
    for (const error of result.errors ?? []) lines.push("**Failed part:**", "", "```text", error, "```", "");
  }
  return lines.join("\n");
}
