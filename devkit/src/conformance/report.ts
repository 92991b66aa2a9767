/**
 * verify's report in four formats: `text` for a person (failures first, each with the curl line that
 * reproduces it, the status and the broken rule with its JSON path), `json` (one object), `junit` (for CI test
 * reports) and `markdown` (for a pull-request comment). What an implementation sent (an event type, a message
 * quoting an answer) is quoted inertly in each: control characters escaped in text and JSON (inert.ts), XML
 * escaped in junit, markdown and HTML escaped in markdown, so a hostile answer cannot clear a terminal, forge
 * a line or a verdict, or add markup to a pull-request comment.
 */
import { formatDuration } from "../common/duration.ts";
import { inert, inertJson, inertLines } from "../inert.ts";
import { CHECKS } from "./checks.ts";
import { KEY_VARIABLES } from "./http.ts";
import type { Failure } from "./types.ts";
import type { VerifyReport } from "./verify.ts";

export const REPORT_FORMATS = ["text", "json", "junit", "markdown"] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

function where(failure: Failure): string {
  return `${failure.operationId} (${failure.method} ${failure.path})`;
}

function rule(failure: Failure): string {
  const parts = [
    failure.jsonPath !== undefined ? `at ${failure.jsonPath || "(the whole body)"}` : "",
    failure.rule ? `rule ${failure.rule}` : "",
  ].filter(Boolean);
  return parts.join(", ");
}

/** Whether the run passed: no error-level failure, ran to its end, and exercised enough of the contract. */
export function passed(report: VerifyReport): boolean {
  return report.summary.failures === 0 && report.stopped === undefined && !report.couldNotCheck;
}

const KINDS = [
  "positive",
  "negative",
  "missing-header",
  "no-auth",
  "wrong-method",
  "isolation",
  "availability",
] as const;

/** The operations × request kinds table (each kind is judged by its checks: --list-checks), with why a row is empty. */
function matrixLines(report: VerifyReport): string[] {
  const rows = Object.keys(report.matrix);
  for (const skip of report.notExercised) if (!rows.includes(skip.what)) rows.push(skip.what);
  if (rows.length === 0) return [];
  const width = Math.max(9, ...rows.map((row) => row.length));
  const lines = [`COVERAGE (requests per operation and kind)`, "", `${"operation".padEnd(width)}  ${KINDS.join("  ")}`];
  for (const row of rows) {
    const counts = report.matrix[row] ?? {};
    const missing = report.notExercised.find((skip) => skip.what === row);
    lines.push(
      `${row.padEnd(width)}  ${KINDS.map((kind) => String(counts[kind] ?? "-").padStart(kind.length)).join("  ")}${missing ? `  not exercised: ${missing.reason}` : ""}`,
    );
  }
  lines.push("");
  return lines;
}

/** The run in a line: the verdict and what was sent; with the duration unless `withDuration` is false. */
function verdict(report: VerifyReport, withDuration = true): string {
  const { summary } = report;
  const notChecked = report.notExercised.map((skip) => skip.what).join(", ");
  const outcome =
    report.stopped !== undefined
      ? `stopped (${report.stopped}), ${summary.failures} failure(s) so far`
      : summary.failures > 0
        ? `${summary.failures} failure(s)${report.couldNotCheck ? `, and could not check ${notChecked}` : ""}`
        : report.couldNotCheck
          ? `could not check: ${notChecked} never got a request that should succeed (${Math.round(report.exercised.share * 100)}% of the operations the options allow, under --min-coverage ${Math.round(report.exercised.minCoverage * 100)}%)`
          : "conforms";
  return `${outcome}: ${summary.operations} of ${summary.operationsInContract} operations, ${summary.requests} requests, ${summary.deliveries} webhook deliveries, ${summary.warnings} warning(s), ${summary.skipped} skipped${withDuration ? `, in ${formatDuration(summary.durationMs)}` : ""}`;
}

/**
 * Failures of one cause (the same check and message) grouped, in the order of their first: a service answering
 * every negative request 200 is one story told once, with each operation it hit.
 */
export function groupFailures(list: readonly Failure[]): Failure[][] {
  const groups = new Map<string, Failure[]>();
  for (const failure of list) {
    const key = `${failure.check}\u0000${failure.message}\u0000${failure.jsonPath ?? ""}`;
    const group = groups.get(key) ?? [];
    group.push(failure);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** "listCards (GET /v1/cards)", or for a group "listCards, listCardBins and 2 more (4 requests)". */
function whereAll(group: readonly Failure[]): string {
  if (group.length === 1) return where(group[0]!);
  const names = [...new Set(group.map((failure) => failure.operationId))];
  const shown = names.length > 5 ? `${names.slice(0, 5).join(", ")} and ${names.length - 5} more` : names.join(", ");
  return `${shown} (${group.length} ${group[0]!.eventId !== undefined || group[0]!.status === null ? "times" : "requests"})`;
}

function text(report: VerifyReport): string {
  const lines: string[] = [];
  const block = (title: string, list: Failure[]) => {
    if (list.length === 0) return;
    lines.push(`${title} (${list.length})`, "");
    groupFailures(list).forEach((group, index) => {
      const failure = group[0]!;
      lines.push(
        `${index + 1}. [${failure.check}] ${whereAll(group)}${failure.status !== null ? `: ${failure.status}` : ""}`,
      );
      lines.push(`   ${failure.message}`);
      const broken = rule(failure);
      if (broken) lines.push(`   ${broken}`);
      if (failure.label) lines.push(`   request: ${failure.label}`);
      if (failure.eventId) lines.push(`   event: ${failure.eventId}`);
      if (failure.curl) lines.push(`   ${failure.curl}`);
      lines.push("");
    });
  };
  block("FAILURES", report.failures);
  block("WARNINGS", report.warnings);
  lines.push(...matrixLines(report));
  if (report.skipped.length > 0) {
    lines.push(`SKIPPED (${report.skipped.length})`, "");
    for (const skip of report.skipped) lines.push(`- ${skip.what}: ${skip.reason}`);
    lines.push("");
  }
  if (report.changes.length > 0) {
    lines.push("CHANGES TO THE TARGET", "");
    for (const change of report.changes) lines.push(`- ${change}`);
    lines.push("");
  }
  if (report.failures.some((failure) => failure.curl) || report.warnings.some((failure) => failure.curl))
    lines.push(`The curl lines read the keys from $${KEY_VARIABLES.main} and $${KEY_VARIABLES.other}.`, "");
  lines.push(
    `${report.baseUrl}: ${verdict(report)} (seed ${report.seed}${report.phases ? `, phases ${report.phases.join(", ")}` : ""}${report.sandboxControl ? ", set up through the sandbox's control API" : ""})`,
  );
  // Every line made inert: a message quoting an answer stays on its line and moves no cursor.
  return `${lines.map(inert).join("\n")}\n`;
}

function json(report: VerifyReport): string {
  const strip = (failure: Failure) => ({ ...failure });
  const text = JSON.stringify(
    {
      baseUrl: report.baseUrl,
      seed: report.seed,
      sandboxControl: report.sandboxControl,
      summary: { ...report.summary, durationMs: Math.round(report.summary.durationMs) },
      failures: report.failures.map(strip),
      warnings: report.warnings.map(strip),
      skipped: report.skipped,
      checks: report.checks,
      ...(report.phases !== undefined ? { phases: report.phases } : {}),
      coverage: report.coverage,
      matrix: report.matrix,
      exercised: report.exercised,
      notExercised: report.notExercised,
      couldNotCheck: report.couldNotCheck,
      changes: report.changes,
      ...(report.stopped !== undefined ? { stopped: report.stopped } : {}),
    },
    null,
    2,
  );
  return `${inertJson(text)}\n`;
}

function xml(text: string): string {
  return (
    inertLines(text)
      // Lone surrogates and U+FFFE/U+FFFF are no XML characters either.
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|[\ufffe\uffff]/g, "\ufffd")
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&apos;")
  );
}

/** One test suite per operation (and webhook event type), one test case per check judged there. */
function junit(report: VerifyReport): string {
  const judged = CHECKS.filter((check) => report.checks.includes(check.id));
  const subjects = new Set([
    ...Object.keys(report.coverage),
    ...report.failures.map((f) => f.operationId),
    ...report.warnings.map((f) => f.operationId),
  ]);
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  let skipped = 0;
  for (const subject of subjects) {
    const cases: string[] = [];
    const isEvent = subject.includes(".") || subject === "(unknown event)";
    for (const check of judged) {
      if ((check.target === "delivery" || check.id === "webhook_delivered") !== isEvent) continue;
      const found = [...report.failures, ...report.warnings].filter(
        (failure) => failure.operationId === subject && failure.check === check.id,
      );
      tests++;
      const name = `${subject} ${check.id}`;
      if (found.length === 0) {
        cases.push(`    <testcase classname="${xml(subject)}" name="${xml(name)}"/>`);
        continue;
      }
      failures++;
      const body = found
        .map((failure) =>
          [failure.message, rule(failure), failure.label ? `request: ${failure.label}` : "", failure.curl ?? ""]
            .filter(Boolean)
            .join("\n"),
        )
        .join("\n\n");
      cases.push(
        `    <testcase classname="${xml(subject)}" name="${xml(name)}"><failure message="${xml(found[0]!.message)}" type="${check.level}">${xml(body)}</failure></testcase>`,
      );
    }
    for (const skip of report.skipped.filter((item) => item.what === subject)) {
      tests++;
      skipped++;
      cases.push(
        `    <testcase classname="${xml(subject)}" name="${xml(`${subject} (skipped)`)}"><skipped message="${xml(skip.reason)}"/></testcase>`,
      );
    }
    suites.push(`  <testsuite name="${xml(subject)}" tests="${cases.length}">\n${cases.join("\n")}\n  </testsuite>`);
  }
  const others = report.skipped.filter((skip) => !subjects.has(skip.what));
  if (others.length > 0) {
    tests += others.length;
    skipped += others.length;
    suites.push(
      `  <testsuite name="not exercised" tests="${others.length}">\n${others
        .map(
          (skip) =>
            `    <testcase classname="not exercised" name="${xml(skip.what)}"><skipped message="${xml(skip.reason)}"/></testcase>`,
        )
        .join("\n")}\n  </testsuite>`,
    );
  }
  if (report.couldNotCheck) {
    tests++;
    failures++;
    const why = report.notExercised.map((skip) => `${skip.what}: ${skip.reason}`).join("\n");
    suites.push(
      `  <testsuite name="coverage" tests="1">\n    <testcase classname="coverage" name="operations exercised"><failure message="${xml(verdict(report, false))}" type="error">${xml(why)}</failure></testcase>\n  </testsuite>`,
    );
  }
  if (report.stopped !== undefined) {
    tests++;
    failures++;
    suites.push(
      `  <testsuite name="the run" tests="1">\n    <testcase classname="the run" name="ran to its end"><failure message="${xml(report.stopped)}" type="error">${xml(report.stopped)}</failure></testcase>\n  </testsuite>`,
    );
  }
  if (report.changes.length > 0)
    suites.push(
      `  <testsuite name="changes to the target" tests="0">\n    <system-out>${xml(report.changes.join("\n"))}</system-out>\n  </testsuite>`,
    );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="partner-api verify ${xml(report.baseUrl)}" tests="${tests}" failures="${failures}" skipped="${skipped}" time="${(report.summary.durationMs / 1000).toFixed(3)}">\n${suites.join("\n")}\n</testsuites>\n`;
}

/**
 * Text from the report as markdown inline text, one line: HTML and the characters that would make a link, an
 * image, emphasis, code or a new table cell are escaped, and control characters made visible.
 */
function cell(text: string): string {
  return inert(text.replace(/\r?\n/g, " "))
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/[\\`*_~[\]|]/g, "\\$&");
}

/** A fence longer than any run of backticks in the block, so nothing in it can close it. */
function fence(lines: readonly string[]): string {
  let longest = 0;
  for (const line of lines) for (const run of line.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return "`".repeat(Math.max(3, longest + 1));
}

function markdown(report: VerifyReport): string {
  const lines: string[] = [];
  const ok = passed(report);
  lines.push(`### ${ok ? "✅" : "❌"} partner-api verify: ${cell(verdict(report))}`, "");
  lines.push(`Target ${cell(report.baseUrl)}, seed ${report.seed}.`, "");
  if (report.stopped !== undefined) lines.push(`**Stopped before its end:** ${cell(report.stopped)}.`, "");
  const table = (title: string, list: Failure[]) => {
    if (list.length === 0) return;
    lines.push(`#### ${title} (${list.length})`, "");
    lines.push("| Check | Operation | Status | What broke |", "|---|---|---:|---|");
    for (const group of groupFailures(list)) {
      const failure = group[0]!;
      lines.push(
        `| \`${failure.check}\` | ${cell(whereAll(group))} | ${failure.status ?? "–"} | ${cell(failure.message)}${rule(failure) ? ` (${cell(rule(failure))})` : ""} |`,
      );
    }
    lines.push("");
    const withCurl = list.filter((failure) => failure.curl);
    if (withCurl.length > 0) {
      const block = withCurl.flatMap((failure) =>
        [`# [${failure.check}] ${failure.operationId}`, failure.curl!].map(inert),
      );
      const mark = fence(block);
      lines.push(
        "<details><summary>Requests to reproduce them</summary>",
        "",
        `${mark}sh`,
        ...block,
        mark,
        "",
        "</details>",
        "",
      );
    }
  };
  table("Failures", report.failures);
  table("Warnings", report.warnings);
  const rows = Object.keys(report.matrix);
  for (const skip of report.notExercised) if (!rows.includes(skip.what)) rows.push(skip.what);
  if (rows.length > 0) {
    lines.push("<details><summary>Coverage: requests per operation and kind</summary>", "");
    lines.push(`| Operation | ${KINDS.join(" | ")} | Not exercised |`, `|---|${KINDS.map(() => "---:|").join("")}---|`);
    for (const row of rows) {
      const counts = report.matrix[row] ?? {};
      const missing = report.notExercised.find((skip) => skip.what === row);
      lines.push(
        `| ${cell(row)} | ${KINDS.map((kind) => counts[kind] ?? "–").join(" | ")} | ${missing ? cell(missing.reason) : ""} |`,
      );
    }
    lines.push("", "</details>", "");
  }
  if (report.changes.length > 0) {
    lines.push("#### Changes to the target", "");
    for (const change of report.changes) lines.push(`- ${cell(change)}`);
    lines.push("");
  }
  if (report.skipped.length > 0) {
    lines.push(`<details><summary>Skipped (${report.skipped.length})</summary>`, "");
    for (const skip of report.skipped) lines.push(`- **${cell(skip.what)}**: ${cell(skip.reason)}`);
    lines.push("", "</details>", "");
  }
  return `${lines.join("\n")}`;
}

export function renderReport(report: VerifyReport, format: ReportFormat): string {
  if (format === "json") return json(report);
  if (format === "junit") return junit(report);
  if (format === "markdown") return markdown(report);
  return text(report);
}

export { verdict as describeVerdict };
