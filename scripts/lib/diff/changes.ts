/** The change record detectors produce, the sink that collects it, and how records of shared components merge. */
import type { Detector, EmitOptions, Flow, Level, Out } from "./checks/define.ts";
import type { OasdiffId } from "./oasdiff-rules.ts";
import { LEVELS, rowFor } from "./registry.ts";

export interface Change {
  /** The check that reported it (`request-field-added-required`): what `--list-checks` prints and config sets. */
  check: string;
  /** The check id without its direction. */
  kind: string;
  /** Which way the data flows where it was found. */
  flow: Flow;
  /** The level after the profile, config file and stability guards are applied (the row's default until then). */
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
  /**
   * The oasdiff rule this change is, where its check covers several (a maximum set rather than lowered); null
   * where oasdiff has no rule for the case.
   */
  oasdiff?: OasdiffId | null;
  /** Set when every operation it reaches is draft or alpha (`x-stability-level`): it may change freely. */
  unstable?: string;
  /** Why a failing change is accepted (an allowlist entry's reason); unset otherwise. */
  acknowledged?: string;
}

/** What an allowlist entry names: `<check> <location>`. */
export function changeKey(change: Pick<Change, "check" | "location">): string {
  return `${change.check} ${change.location}`;
}

/**
 * Collects changes during one comparison. A detector reports only the checks whose rows name it: a report of
 * a kind no row declares, of another detector's check, or naming an oasdiff rule its check does not cover, is a
 * bug and throws.
 */
export class ChangeSink {
  readonly changes: Change[] = [];

  private readonly rewrite?: (change: Change) => Change;
  /** `rewrite` turns what a detector reports into what this place reports (an ignored field, a header's values). */
  constructor(rewrite?: (change: Change) => Change) {
    this.rewrite = rewrite;
  }

  static change(
    detector: Detector,
    flow: Flow,
    kind: string,
    location: string,
    message: string,
    rule?: OasdiffId | null,
  ) {
    const row = rowFor(kind, flow);
    if (!row) throw new Error(`detector ${detector.name} reported "${kind}", which no registry row declares`);
    if (row.detector !== detector)
      throw new Error(`${row.id} is reported by ${detector.name}, but its row names ${row.detector.name}`);
    if (rule && !row.oasdiff.includes(rule))
      throw new Error(`${detector.name} reported ${row.id} as oasdiff's ${rule}, which the row does not cover`);
    const change: Change = {
      check: row.id,
      kind,
      flow,
      level: row.level,
      location,
      message,
      usedBy: [],
      documentation: row.documentation,
    };
    if (rule !== undefined) change.oasdiff = rule;
    return change;
  }

  out(detector: Detector, flow: Flow): Out {
    return {
      flow,
      emit: (kind: string, where: string, message: string, options: EmitOptions = {}) => {
        const change = ChangeSink.change(detector, flow, kind, where, message, options.oasdiff);
        this.changes.push(this.rewrite ? this.rewrite(change) : change);
      },
    };
  }

  /** Adds changes found elsewhere (a memoised component comparison), marking which operation reached them. */
  addFrom(changes: readonly Change[], user?: string, unstable?: string): void {
    for (const found of changes) {
      const change = this.rewrite ? this.rewrite(found) : found;
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
