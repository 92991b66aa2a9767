/**
 * Acknowledging breaking changes: a major bump of info.version accepts all of them; otherwise each
 * needs an entry in the allowlist file (`openapi-changes.allow.yaml`) with the change id and a reason.
 */
import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import type { Change } from "./changes.ts";
import { DiffInputError } from "./load.ts";
import { isObject } from "./resolve.ts";

export interface AllowEntry {
  /** The change id exactly as the diff prints it: `<kind> <location>`. */
  change: string;
  reason: string;
}

export const ALLOWLIST_FILE = "openapi-changes.allow.yaml";

/** Reads and checks the allowlist. A missing file is an empty list unless `required` (given explicitly). */
export async function readAllowlist(file: string, shown: string, required = false): Promise<AllowEntry[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && !required) return [];
    throw new DiffInputError(
      `allowlist "${shown}" cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  return parseAllowlist(text, shown);
}

export function parseAllowlist(text: string, shown: string): AllowEntry[] {
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw new DiffInputError(`allowlist "${shown}" is not valid YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  if (data === null || data === undefined) return [];
  if (!isObject(data) || !("acknowledged" in data)) {
    throw new DiffInputError(`allowlist "${shown}" must be a mapping with an \`acknowledged:\` list`);
  }
  const list = data.acknowledged ?? [];
  if (!Array.isArray(list)) throw new DiffInputError(`allowlist "${shown}": \`acknowledged\` must be a list`);
  return list.map((entry, index) => {
    const where = `allowlist "${shown}" entry ${index + 1}`;
    if (!isObject(entry)) throw new DiffInputError(`${where} must be a mapping with \`change\` and \`reason\``);
    if (typeof entry.change !== "string" || entry.change.trim() === "") {
      throw new DiffInputError(
        `${where} has no \`change\`: copy the change id the diff prints (for example "field-removed #/components/schemas/Card .last4")`,
      );
    }
    if (typeof entry.reason !== "string" || entry.reason.trim() === "") {
      throw new DiffInputError(
        `${where} ("${entry.change}") has no \`reason\`: say why partners can live with this breaking change`,
      );
    }
    return { change: entry.change.trim(), reason: entry.reason.trim() };
  });
}

/** The major number of a version string (`1.4.0`, `v2`), or undefined when it has none. */
export function majorOf(version: unknown): number | undefined {
  const match = typeof version === "string" ? /^v?(\d+)(\.|$)/.exec(version.trim()) : null;
  return match ? Number(match[1]) : undefined;
}

export function isMajorBump(baseVersion: unknown, headVersion: unknown): boolean {
  const before = majorOf(baseVersion);
  const after = majorOf(headVersion);
  return before !== undefined && after !== undefined && after > before;
}

export interface Acknowledgement {
  changes: Change[];
  /** Allowlist entries that match no breaking change (left over from an earlier change, or mistyped). */
  unused: AllowEntry[];
}

/** Marks breaking changes as acknowledged by a major bump or an allowlist entry. */
export function acknowledge(
  changes: readonly Change[],
  baseVersion: unknown,
  headVersion: unknown,
  allowlist: readonly AllowEntry[],
): Acknowledgement {
  const bump = isMajorBump(baseVersion, headVersion)
    ? `major version bump ${String(baseVersion)} → ${String(headVersion)}`
    : undefined;
  const used = new Set<AllowEntry>();
  const result = changes.map((change) => {
    if (change.class !== "breaking") return change;
    const entry = allowlist.find((candidate) => candidate.change === change.id);
    if (entry) used.add(entry);
    const why = entry ? `allowlist: ${entry.reason}` : bump;
    return why ? { ...change, acknowledged: why } : change;
  });
  return { changes: result, unused: allowlist.filter((entry) => !used.has(entry)) };
}
