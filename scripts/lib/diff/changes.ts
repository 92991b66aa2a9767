/** The change record every comparison module produces, and how records of shared components are merged. */
import { type ChangeClass, type ChangeKind, CLASS_ORDER, classify, type Flow } from "./rules.ts";

export interface Change {
  /** Stable identifier, `<kind> <location>`: what an allowlist entry names. */
  id: string;
  kind: ChangeKind;
  class: ChangeClass;
  /**
   * Where the change is: a component pointer plus field path (`#/components/schemas/Card .last4`)
   * when it lies inside a shared component, else the operation or webhook and the place in it.
   */
  location: string;
  message: string;
  /** The operations and webhooks a change inside a shared component reaches (empty otherwise). */
  usedBy: string[];
  /** Why a breaking change is accepted (major version bump or allowlist reason); unset otherwise. */
  acknowledged?: string;
}

/** Collects changes during one comparison; `emit` classifies each by its kind and direction. */
export class ChangeSink {
  readonly changes: Change[] = [];

  emit(kind: ChangeKind, flow: Flow, location: string, message: string): void {
    this.changes.push({ id: `${kind} ${location}`, kind, class: classify(kind, flow), location, message, usedBy: [] });
  }

  /** Adds changes found elsewhere (a memoised component comparison), marking which operation reached them. */
  addFrom(changes: readonly Change[], user?: string): void {
    for (const change of changes) {
      const usedBy = user && change.location.startsWith("#/components/") ? [user] : [];
      this.changes.push({ ...change, usedBy: [...change.usedBy, ...usedBy] });
    }
  }
}

/**
 * One entry per (id, class): a change inside a shared component reached from many operations is
 * reported once at the component, with its users listed. Sorted by class, then location.
 */
export function mergeChanges(changes: readonly Change[]): Change[] {
  const merged = new Map<string, Change>();
  for (const change of changes) {
    const key = `${change.class}|${change.id}`;
    const seen = merged.get(key);
    if (!seen) merged.set(key, { ...change, usedBy: [...new Set(change.usedBy)] });
    else seen.usedBy = [...new Set([...seen.usedBy, ...change.usedBy])];
  }
  return [...merged.values()]
    .map((change) => ({ ...change, usedBy: [...change.usedBy].sort() }))
    .sort(
      (a, b) =>
        CLASS_ORDER.indexOf(a.class) - CLASS_ORDER.indexOf(b.class) ||
        a.location.localeCompare(b.location) ||
        a.kind.localeCompare(b.kind),
    );
}
