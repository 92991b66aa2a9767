/** The result of comparing two contracts, and its two outputs: a readable list and a Markdown changelog. */
import { type AllowEntry, acknowledge } from "./acknowledge.ts";
import type { Change } from "./changes.ts";
import { compareDocuments } from "./operations.ts";
import { type Document, isObject } from "./resolve.ts";
import { CLASS_ORDER, CLASS_TITLES } from "./rules.ts";

export interface ContractSummary {
  label: string;
  version: string;
  operations: number;
  webhooks: number;
}

export interface DiffReport {
  base: ContractSummary;
  head: ContractSummary;
  changes: Change[];
  /** Breaking changes with no acknowledgement: the gate fails when there is any. */
  unacknowledged: Change[];
  unusedAllowEntries: AllowEntry[];
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

export function summarise(document: Document, label: string): ContractSummary {
  const count = (items: unknown) =>
    Object.values(isObject(items) ? items : {}).reduce<number>(
      (sum, item) => sum + (isObject(item) ? METHODS.filter((m) => m in item).length : 0),
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

/** Compares `base` with `head` and applies the acknowledgements (major bump, allowlist). */
export function diffContracts(
  base: { document: Document; label: string },
  head: { document: Document; label: string },
  allowlist: readonly AllowEntry[] = [],
): DiffReport {
  const found = compareDocuments(base.document, head.document);
  const baseSummary = summarise(base.document, base.label);
  const headSummary = summarise(head.document, head.label);
  const { changes, unused } = acknowledge(found, baseSummary.version, headSummary.version, allowlist);
  return {
    base: baseSummary,
    head: headSummary,
    changes,
    unacknowledged: changes.filter((change) => change.class === "breaking" && !change.acknowledged),
    unusedAllowEntries: unused,
  };
}

function describe(summary: ContractSummary): string {
  return `${summary.label}: version ${summary.version}, ${summary.operations} operations, ${summary.webhooks} webhooks`;
}

export function countLine(report: DiffReport): string {
  const of = (cls: string) => report.changes.filter((change) => change.class === cls).length;
  const acknowledged = report.changes.filter((change) => change.acknowledged).length;
  const breaking = `${of("breaking")} breaking${acknowledged > 0 ? ` (${acknowledged} acknowledged)` : ""}`;
  return `${report.changes.length} changes: ${breaking}, ${of("compatible")} compatible, ${of("documentation")} documentation-only`;
}

/** The readable list: grouped by class, each change with its location, id and users. */
export function formatText(report: DiffReport): string {
  const lines = [`base  ${describe(report.base)}`, `head  ${describe(report.head)}`, ""];
  if (report.changes.length === 0) lines.push("No changes to the contract.");
  for (const cls of CLASS_ORDER) {
    const group = report.changes.filter((change) => change.class === cls);
    if (group.length === 0) continue;
    lines.push(`${CLASS_TITLES[cls]} (${group.length})`);
    for (const change of group) {
      const mark = cls !== "breaking" ? "" : change.acknowledged ? "[acknowledged] " : "[NOT ACKNOWLEDGED] ";
      lines.push(`  - ${mark}${change.location}: ${change.message}`);
      if (change.usedBy.length > 0) lines.push(`      used by: ${change.usedBy.join("; ")}`);
      if (cls === "breaking") {
        lines.push(`      id: ${change.id}`);
        if (change.acknowledged) lines.push(`      acknowledged by ${change.acknowledged}`);
      }
    }
    lines.push("");
  }
  for (const entry of report.unusedAllowEntries)
    lines.push(
      `note: allowlist entry "${entry.change}" matches no breaking change; remove it once it is no longer needed`,
    );
  lines.push(countLine(report));
  if (report.unacknowledged.length > 0) {
    lines.push(
      `FAILED: ${report.unacknowledged.length} breaking change(s) not acknowledged. Bump the major of info.version, ` +
        `or add each id with a reason to openapi-changes.allow.yaml.`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** A changelog section to paste into release notes. */
export function formatMarkdown(report: DiffReport): string {
  const lines = [`## API changes: ${report.base.version} → ${report.head.version}`, ""];
  if (report.changes.length === 0) lines.push("No changes to the API contract.", "");
  for (const cls of CLASS_ORDER) {
    const group = report.changes.filter((change) => change.class === cls);
    if (group.length === 0) continue;
    lines.push(`### ${CLASS_TITLES[cls]}`, "");
    for (const change of group) {
      const users =
        change.usedBy.length > 0 ? ` (affects ${change.usedBy.map((user) => `\`${user}\``).join(", ")})` : "";
      const why = cls === "breaking" && change.acknowledged ? ` Acknowledged: ${change.acknowledged}.` : "";
      lines.push(`- \`${change.location}\`: ${change.message}${users}.${why}`);
    }
    lines.push("");
  }
  return lines.join("\n");
}
