/**
 * verify's report in four formats: `text` for a person (failures first, each with the curl line that
 * reproduces it, the status and the broken rule with its JSON path), `json` (one object), `junit` (for CI test
 * reports) and `markdown` (for a pull-request comment).
 */
import { formatDuration } from "../common/duration.ts";
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

/** The run in a line: the verdict and what was sent; with the duration unless `withDuration` is false. */
function verdict(report: VerifyReport, withDuration = true): string {
  const { summary } = report;
  return `${summary.failures === 0 ? "conforms" : `${summary.failures} failure(s)`}: ${summary.operations} of ${summary.operationsInContract} operations, ${summary.requests} requests, ${summary.deliveries} webhook deliveries, ${summary.warnings} warning(s), ${summary.skipped} skipped${withDuration ? `, in ${formatDuration(summary.durationMs)}` : ""}`;
}

function text(report: VerifyReport): string {
  const lines: string[] = [];
  const block = (title: string, list: Failure[]) => {
    if (list.length === 0) return;
    lines.push(`${title} (${list.length})`, "");
    list.forEach((failure, index) => {
      lines.push(
        `${index + 1}. [${failure.check}] ${where(failure)}${failure.status !== null ? `: ${failure.status}` : ""}`,
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
  if (report.skipped.length > 0) {
    lines.push(`SKIPPED (${report.skipped.length})`, "");
    for (const skip of report.skipped) lines.push(`- ${skip.what}: ${skip.reason}`);
    lines.push("");
  }
  if (report.failures.some((failure) => failure.curl) || report.warnings.some((failure) => failure.curl))
    lines.push(`The curl lines read the keys from $${KEY_VARIABLES.main} and $${KEY_VARIABLES.other}.`, "");
  lines.push(
    `${report.baseUrl}: ${verdict(report)} (seed ${report.seed}${report.sandboxControl ? ", set up through the sandbox's control API" : ""})`,
  );
  return `${lines.join("\n")}\n`;
}

function json(report: VerifyReport): string {
  const strip = (failure: Failure) => ({ ...failure });
  return `${JSON.stringify(
    {
      baseUrl: report.baseUrl,
      seed: report.seed,
      sandboxControl: report.sandboxControl,
      summary: { ...report.summary, durationMs: Math.round(report.summary.durationMs) },
      failures: report.failures.map(strip),
      warnings: report.warnings.map(strip),
      skipped: report.skipped,
      checks: report.checks,
      coverage: report.coverage,
    },
    null,
    2,
  )}\n`;
}

function xml(text: string): string {
  return (
    text
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      // XML 1.0 allows no control characters other than tab, newline and carriage return.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "")
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
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="partner-api verify ${xml(report.baseUrl)}" tests="${tests}" failures="${failures}" skipped="${skipped}" time="${(report.summary.durationMs / 1000).toFixed(3)}">\n${suites.join("\n")}\n</testsuites>\n`;
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

function markdown(report: VerifyReport): string {
  const lines: string[] = [];
  const ok = report.summary.failures === 0;
  lines.push(`### ${ok ? "✅" : "❌"} partner-api verify: ${verdict(report)}`, "");
  lines.push(`Target \`${report.baseUrl}\`, seed ${report.seed}.`, "");
  const table = (title: string, list: Failure[]) => {
    if (list.length === 0) return;
    lines.push(`#### ${title} (${list.length})`, "");
    lines.push("| Check | Operation | Status | What broke |", "|---|---|---:|---|");
    for (const failure of list)
      lines.push(
        `| \`${failure.check}\` | ${cell(where(failure))} | ${failure.status ?? "–"} | ${cell(failure.message)}${rule(failure) ? ` (${cell(rule(failure))})` : ""} |`,
      );
    lines.push("");
    const withCurl = list.filter((failure) => failure.curl);
    if (withCurl.length > 0) {
      lines.push("<details><summary>Requests to reproduce them</summary>", "", "```sh");
      for (const failure of withCurl) lines.push(`# [${failure.check}] ${failure.operationId}`, failure.curl!);
      lines.push("```", "", "</details>", "");
    }
  };
  table("Failures", report.failures);
  table("Warnings", report.warnings);
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
