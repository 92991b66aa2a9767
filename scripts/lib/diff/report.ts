/**
 * The result of comparing two contracts: levels from the config applied, acknowledgements matched, the
 * verdict a release needs; and its four outputs: readable text, a Markdown changelog, JSON and GitHub
 * workflow annotations.
 */
import { HTTP_METHODS } from "partner-api-client";
import { type Change, changeKey, sortChanges } from "./changes.ts";
import { atLeast, LEVELS, type Level } from "./checks/define.ts";
import { type AllowEntry, emptyConfig, type GateConfig } from "./config.ts";
import { findCheck, levelIn, type Profile } from "./registry.ts";
import { type Document, isObject } from "./resolve.ts";
import { type CompareOptions, compareDocuments } from "./walk.ts";

export interface ContractSummary {
  label: string;
  version: string;
  operations: number;
  webhooks: number;
}

/** What a release must at least be: breaking → major, compatible → minor, documentation only (or nothing) → patch. */
export type Verdict = "breaking" | "compatible" | "documentation" | "none";

export interface DiffReport {
  base: ContractSummary;
  head: ContractSummary;
  /** Every change at its effective level, most severe first. */
  changes: Change[];
  failOn: Level;
  /** Changes at or above `failOn` with no acknowledgement: the gate fails when there is any. */
  failing: Change[];
  unusedAllowEntries: AllowEntry[];
  verdict: Verdict;
}

export function summarise(document: Document, label: string): ContractSummary {
  const count = (items: unknown) =>
    Object.values(isObject(items) ? items : {}).reduce<number>(
      (sum, item) => sum + (isObject(item) ? HTTP_METHODS.filter((m) => m in item).length : 0),
      0,
    );
  const info = isObject(document.info) ? document.info : {};
  return {
    label,
    version: String(info.version ?? "unversioned"),
    operations: count(document.paths),
    webhooks: count(document.webhooks),
  };
}

export interface DiffOptions extends CompareOptions {
  config?: GateConfig;
  failOn?: Level;
  /** Whose levels: this gate's (`default`) or oasdiff's where oasdiff has the check (`oasdiff`). */
  profile?: Profile;
}

/** Compares `base` with `head`, applies the config's levels and acknowledgements, and gives the verdict. */
export function diffContracts(
  base: { document: Document; label: string },
  head: { document: Document; label: string },
  options: DiffOptions = {},
): DiffReport {
  const config = options.config ?? emptyConfig();
  const failOn = options.failOn ?? "error";
  const profile = options.profile ?? "default";
  const used = new Set<AllowEntry>();
  const changes: Change[] = [];
  for (const found of compareDocuments(base.document, head.document, options)) {
    const configured = config.levels.get(found.check);
    if (configured === "none") continue;
    const level = configured ?? levelIn(findCheck(found.check)!, profile, found.oasdiff);
    let change: Change = { ...found, level };
    if (change.unstable && change.level !== "info")
      change = { ...change, level: "info", message: `${change.message} (${change.unstable})` };
    if (atLeast(change.level, failOn)) {
      const entry = config.acknowledged.find((candidate) => candidate.change === changeKey(change));
      if (entry) {
        used.add(entry);
        change = { ...change, acknowledged: entry.reason };
      }
    }
    changes.push(change);
  }
  sortChanges(changes);
  const breaking = changes.some((change) => atLeast(change.level, failOn));
  const compatible = changes.some((change) => !change.documentation);
  return {
    base: summarise(base.document, base.label),
    head: summarise(head.document, head.label),
    changes,
    failOn,
    failing: changes.filter((change) => atLeast(change.level, failOn) && !change.acknowledged),
    unusedAllowEntries: config.acknowledged.filter((entry) => !used.has(entry)),
    verdict: breaking ? "breaking" : compatible ? "compatible" : changes.length > 0 ? "documentation" : "none",
  };
}

const LEVEL_TITLES: Record<Level, string> = { error: "Errors", warning: "Warnings", info: "Info" };

function describe(summary: ContractSummary): string {
  return `${summary.label}: version ${summary.version}, ${summary.operations} operations, ${summary.webhooks} webhooks`;
}

export function countLine(report: DiffReport): string {
  const of = (level: Level) => report.changes.filter((change) => change.level === level).length;
  const acknowledged = report.changes.filter((change) => change.acknowledged).length;
  return (
    `${report.changes.length} changes: ${of("error")} error, ${of("warning")} warning, ${of("info")} info` +
    `${acknowledged > 0 ? ` (${acknowledged} acknowledged)` : ""}; verdict: ${report.verdict}`
  );
}

/** The readable list: grouped by level, each change with its location, check id and users. */
export function formatText(report: DiffReport): string {
  const lines = [`base  ${describe(report.base)}`, `head  ${describe(report.head)}`, ""];
  if (report.changes.length === 0) lines.push("No changes to the contract.", "");
  for (const level of LEVELS) {
    const group = report.changes.filter((change) => change.level === level);
    if (group.length === 0) continue;
    lines.push(`${LEVEL_TITLES[level]} (${group.length})`);
    for (const change of group) {
      const fails = atLeast(level, report.failOn);
      const mark = !fails ? "" : change.acknowledged ? "[acknowledged] " : "[FAILS] ";
      lines.push(`  - ${mark}${change.location}: ${change.message}`);
      lines.push(`      check: ${change.check}`);
      if (change.usedBy.length > 0) lines.push(`      used by: ${change.usedBy.join("; ")}`);
      if (change.acknowledged) lines.push(`      acknowledged: ${change.acknowledged}`);
    }
    lines.push("");
  }
  for (const entry of report.unusedAllowEntries)
    lines.push(`note: acknowledged entry "${entry.change}" matches no failing change; remove it`);
  lines.push(countLine(report));
  if (report.failing.length > 0) {
    lines.push(
      `FAILED: ${report.failing.length} change(s) at level ${report.failOn} or above. Undo them, or acknowledge each ` +
        `in openapi-changes.allow.yaml (change: "<check> <location>", reason: why partners can live with it) and release a major version.`,
    );
  }
  return `${lines.join("\n")}\n`;
}

const MARKDOWN_SECTIONS: { title: string; pick: (change: Change, failOn: Level) => boolean }[] = [
  { title: "Breaking", pick: (change, failOn) => atLeast(change.level, failOn) },
  { title: "Warnings", pick: (change, failOn) => !atLeast(change.level, failOn) && change.level === "warning" },
  {
    title: "Compatible",
    pick: (change, failOn) => !atLeast(change.level, failOn) && change.level === "info" && !change.documentation,
  },
  {
    title: "Documentation only",
    pick: (change, failOn) => !atLeast(change.level, failOn) && change.level === "info" && change.documentation,
  },
];

/**
 * `## API changes: <base> → <head>` when the versions differ; the same version on both sides is a working tree not
 * released yet: `## API changes since <base> (unreleased)`.
 */
export function markdownHeading(report: Pick<DiffReport, "base" | "head">): string {
  return report.base.version === report.head.version
    ? `## API changes since ${report.base.version} (unreleased)`
    : `## API changes: ${report.base.version} → ${report.head.version}`;
}

/** A changelog section; `heading` replaces the default (`markdownHeading`). */
export function formatMarkdown(report: DiffReport, heading?: string): string {
  const lines = [heading ?? markdownHeading(report), ""];
  if (report.changes.length === 0) lines.push("No changes to the API contract.", "");
  for (const section of MARKDOWN_SECTIONS) {
    const group = report.changes.filter((change) => section.pick(change, report.failOn));
    if (group.length === 0) continue;
    lines.push(`### ${section.title}`, "");
    for (const change of group) {
      const users =
        change.usedBy.length > 0 ? ` (affects ${change.usedBy.map((user) => `\`${user}\``).join(", ")})` : "";
      const why = change.acknowledged ? ` Acknowledged: ${change.acknowledged}.` : "";
      lines.push(`- \`${change.location}\`: ${change.message}${users}.${why}`);
    }
    lines.push("");
  }
  return lines.join("\n");
}

/**
 * One JSON object per change: a list a script can filter by `level` or `id`. One line, so a reader that takes
 * the last line of `npm run diff`'s output (after npm's own banner) gets all of it.
 */
export function formatJson(report: DiffReport): string {
  const list = report.changes.map((change) => ({
    id: change.check,
    level: change.level,
    location: change.location,
    message: change.message,
    usedBy: change.usedBy,
    documentation: change.documentation,
    ...(change.acknowledged ? { acknowledged: change.acknowledged } : {}),
  }));
  return `${JSON.stringify(list)}\n`;
}

/**
 * GitHub Actions workflow commands: `::error`, `::warning`, `::notice`, one per change; with `sources` (the head is
 * the working tree), each carries the split file and line of the change (`file=openapi/…yaml,line=12`), so it lands
 * on the YAML in the pull request's diff.
 */
export function formatGithub(
  report: DiffReport,
  sources?: (location: string) => { file: string; line: number } | undefined,
): string {
  const escapeData = (text: string) => text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
  const escapeProperty = (text: string) => escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
  const command: Record<Level, string> = { error: "error", warning: "warning", info: "notice" };
  const lines = report.changes.map((change) => {
    const level = change.acknowledged ? "notice" : command[change.level];
    const title = escapeProperty(`${change.check}${change.acknowledged ? " (acknowledged)" : ""}`);
    const source = sources?.(change.location);
    const at = source ? `file=${escapeProperty(source.file)},line=${source.line},` : "";
    return `::${level} ${at}title=${title}::${escapeData(`${change.location}: ${change.message}`)}`;
  });
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}
