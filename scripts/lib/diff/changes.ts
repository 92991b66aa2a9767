/** The change record every comparison module produces, and how records of shared components are merged. */
import { type ChangeKind, checkId, defaultLevel, type Flow, isDocumentation, LEVELS, type Level } from "./rules.ts";

export interface Change {
  /** The check that reported it (`request-field-added-required`): what `--list-checks` prints and config sets. */
  check: string;
  kind: ChangeKind;
  /** The level after the config file and stability guards are applied (the table's default until then). */
  level: Level;
  /**
   * Where the change is: a component pointer plus field path (`#/components/schemas/Card .last4`)
   * when it lies inside a shared component, else the operation or webhook and the place in it.
   */
  location: string;
  message: string;
  /** The operations and webhooks a change inside a shared component reaches (empty otherwise). */
  usedBy: string[];
  /** Documentation only (a patch release). */
  documentation: boolean;
  /** Set when every operation it reaches is draft or alpha (`x-stability-level`): it may change freely. */
  unstable?: string;
  /** Why a failing change is accepted (an allowlist entry's reason); unset otherwise. */
  acknowledged?: string;
}

/** What an allowlist entry names: `<check> <location>`. */
export function changeKey(change: Pick<Change, "check" | "location">): string {
  return `${change.check} ${change.location}`;
}

/** Collects changes during one comparison. */
export class ChangeSink {
  readonly changes: Change[] = [];

  emit(kind: ChangeKind, flow: Flow, location: string, message: string): void {
    this.changes.push({
      check: checkId(kind, flow),
      kind,
      level: defaultLevel(kind, flow),
      location,
      message,
      usedBy: [],
      documentation: isDocumentation(kind),
    });
  }

  /** Adds changes found elsewhere (a memoised component comparison), marking which operation reached them. */
  addFrom(changes: readonly Change[], user?: string, unstable?: string): void {
    for (const change of changes) {
      const usedBy = user && change.location.startsWith("#/components/") ? [user] : [];
      this.changes.push({
        ...change,
        usedBy: [...change.usedBy, ...usedBy],
        ...(unstable && !change.unstable ? { unstable } : {}),
      });
    }
  }
}

/**
 * One entry per (check, location): a change inside a shared component reached from many operations is
 * reported once at the component, with its users listed. It counts as unstable only when every use is.
 * Sorted by level, then location.
 */
export function mergeChanges(changes: readonly Change[]): Change[] {
  const merged = new Map<string, Change>();
  for (const change of changes) {
    const key = changeKey(change);
    const seen = merged.get(key);
    if (!seen) merged.set(key, { ...change, usedBy: [...new Set(change.usedBy)] });
    else {
      seen.usedBy = [...new Set([...seen.usedBy, ...change.usedBy])];
      if (!change.unstable) delete seen.unstable;
    }
  }
  return sortChanges([...merged.values()].map((change) => ({ ...change, usedBy: [...change.usedBy].sort() })));
}

export function sortChanges(changes: Change[]): Change[] {
  return changes.sort(
    (a, b) =>
      LEVELS.indexOf(a.level) - LEVELS.indexOf(b.level) ||
      a.location.localeCompare(b.location) ||
      a.check.localeCompare(b.check),
  );
}
