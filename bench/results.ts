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
  /** Benchmarks whose sections were kept from the file the run wrote over (a run with --only). */
  kept?: string[];
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

/** A benchmark's section of an earlier bench/RESULTS.md, kept as it was written. */
interface KeptSection {
  title: string;
  /** Its lines, from its heading to the line before the next section. */
  lines: string[];
  /** Its rows of the Targets table. */
  targetRows: string[];
  /** The size it was measured at ("full", "quick", …), when the file says. */
  size: string | undefined;
  failed: boolean;
}

const SECTION_HEADING = /^## (.+) \(`([\w-]+)`, [^)]*\)$/;
const RUN_LINE = /^Measured on .*, size (\w+), /;

/**
 * The benchmarks' sections of an earlier bench/RESULTS.md by name, each with its rows of the Targets table. A
 * section written before sections said when they were measured gets that line from the file's Machine table.
 */
export function keptSections(text: string): Map<string, KeptSection> {
  const lines = text.split("\n");
  const machine = (row: string) =>
    lines.find((line) => line.startsWith(`| ${row} | `))?.slice(row.length + 5, -2) ?? undefined;
  const sections = new Map<string, KeptSection>();
  let current: KeptSection | undefined;
  let inTargets = false;
  const targetRows: string[] = [];
  for (const line of lines) {
    if (line.startsWith("## ")) {
      inTargets = line === "## Targets";
      const heading = SECTION_HEADING.exec(line);
      current = heading ? { title: heading[1]!, lines: [], targetRows: [], size: undefined, failed: false } : undefined;
      if (heading) sections.set(heading[2]!, current!);
    } else if (inTargets && line.startsWith("| ") && !line.startsWith("| Benchmark |") && !line.startsWith("|---"))
      targetRows.push(line);
    if (!current) continue;
    current.lines.push(line);
    const run = RUN_LINE.exec(line);
    if (run) current.size = run[1];
    if (line === "**Failed to run:**" || line === "**Failed part:**") current.failed = true;
  }
  for (const section of sections.values()) {
    while (section.lines.at(-1) === "") section.lines.pop();
    section.targetRows = targetRows.filter((row) => row.startsWith(`| ${cell(section.title)} | `));
    if (section.size === undefined) {
      const date = machine("Date");
      const size = machine("Size");
      const load = machine("Load average at start (1, 5, 15 min)");
      if (date && size) {
        section.size = size;
        section.lines.splice(1, 0, "", runLine(date, size, load ?? "unknown"));
      }
    }
  }
  return sections;
}

function runLine(date: string, size: string, load: string): string {
  return `Measured on ${date}, size ${size}, load average at start ${load}.`;
}

/** What renderResults is given beside the run. */
export interface RenderOptions {
  /**
   * The file the run replaces sections of (a run with --only): every other benchmark's section and Targets rows
   * are kept as that file holds them.
   */
  previous?: string;
  /** Every benchmark's name, in the order the file lists them. */
  names?: readonly string[];
}

/** The Markdown of bench/RESULTS.md. */
export function renderResults(summary: RunSummary, options: RenderOptions = {}): string {
  const { machine } = summary;
  const ran = new Map(summary.outcomes.map((outcome) => [outcome.name, outcome]));
  const previous = options.previous === undefined ? new Map<string, KeptSection>() : keptSections(options.previous);
  const order = [...(options.names ?? []), ...summary.outcomes.map((o) => o.name), ...previous.keys()];
  /** Each benchmark the file shows, in order: measured by this run, or kept from the file before. */
  const entries = [...new Set(order)]
    .map((name) => ({ name, outcome: ran.get(name), kept: ran.has(name) ? undefined : previous.get(name) }))
    .filter((entry) => entry.outcome || entry.kept);
  const kept = entries.filter((entry) => entry.kept);
  const load = machine.loadAverage.map((v) => v.toFixed(2)).join(", ");
  const lines: string[] = [];
  lines.push("# Benchmark results", "");
  lines.push("Written by `npm run bench` (bench/cli.ts); do not edit by hand. Figures are medians over");
  lines.push("alternating rounds in one process; ratios compare candidates measured side by side.", "");
  if (kept.length === 0 && (summary.size !== "full" || summary.only)) {
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
  } else if (kept.length > 0) {
    const notFull = entries
      .filter((entry) => (entry.outcome ? summary.size : entry.kept!.size) !== "full")
      .map((entry) => entry.name);
    const missing = (options.names ?? []).filter((name) => !entries.some((entry) => entry.name === name));
    const why = [
      notFull.length > 0 ? `not measured at full size: ${notFull.join(", ")}` : "",
      missing.length > 0 ? `never measured: ${missing.join(", ")}` : "",
    ].filter(Boolean);
    lines.push(
      `> This run (${summary.only?.join(", ") ?? "every benchmark"}) replaced its own sections; ${kept.length} section(s) are kept from earlier runs (${kept.map((entry) => entry.name).join(", ")}), each saying when it was measured.` +
        (why.length > 0 ? ` **Not the figures of record** (${why.join("; ")}).` : ""),
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
  lines.push(`| Load average at start (1, 5, 15 min) | ${load} |`);
  lines.push(`| Size | ${summary.size} |`);
  lines.push(`| Total time | ${formatDuration(summary.totalMs)} |`);
  lines.push("");

  const targetRows = entries.flatMap(({ outcome, kept }) =>
    outcome
      ? (outcome.result?.ratios ?? [])
          .filter((r) => r.target !== undefined)
          .map(
            (r) =>
              `| ${cell(outcome.title)} | ${cell(r.label)} | ${r.value.toFixed(2)}x | ≥ ${r.target!.toFixed(2)}x | ${targetMet(r) ? "yes" : "**no**"} |`,
          )
      : kept!.targetRows,
  );
  lines.push("## Targets", "");
  if (targetRows.length === 0) lines.push("No benchmark with a target ran.");
  else lines.push("| Benchmark | Ratio | Value | Target | Met |", "|---|---|---:|---:|---|", ...targetRows);
  const failed = entries.filter(({ outcome, kept }) =>
    outcome ? outcome.error || (outcome.result?.errors?.length ?? 0) > 0 : kept!.failed,
  );
  if (failed.length > 0)
    lines.push(
      "",
      `**${failed.length} benchmark(s) failed to run, in whole or in part**: ${failed.map((o) => o.name).join(", ")} (see below).`,
    );
  lines.push("");

  for (const { outcome, kept } of entries) {
    if (!outcome) {
      lines.push(...kept!.lines, "");
      continue;
    }
    lines.push(`## ${outcome.title} (\`${outcome.name}\`, ${formatDuration(outcome.ms)})`, "");
    lines.push(runLine(machine.date, summary.size, load), "");
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
