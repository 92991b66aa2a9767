/** Ids held in a JSON value (an answer's body, a delivery): what account_isolation searches for. */

/**
 * Calls `visit` with every string value in a JSON value (not property names), in document order, until it
 * returns true. Walked with a list, not recursion: any depth and any number of items cost no stack.
 */
export function visitStrings(value: unknown, visit: (text: string) => boolean | undefined): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node === "string") {
      if (visit(node)) return true;
    } else if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index--) pending.push(node[index]);
    } else if (node !== null && typeof node === "object") {
      const values = Object.values(node);
      for (let index = values.length - 1; index >= 0; index--) pending.push(values[index]);
    }
  }
  return false;
}

/** Whether a JSON value holds `id` as a string anywhere in it. */
export function holdsString(value: unknown, id: string): boolean {
  return visitStrings(value, (text) => text === id);
}

/** The ids of `ids` a JSON value holds, each once, in the order it holds them: one pass over the value. */
export function heldIds(value: unknown, ids: ReadonlySet<string>): string[] {
  const held = new Set<string>();
  visitStrings(value, (text) => {
    if (ids.has(text)) held.add(text);
    return undefined;
  });
  return [...held];
}

/** Ids named in one message at most; the rest are counted. */
const IDS_NAMED = 10;

/** "01J…, 01K… and 3 more" */
export function namedIds(ids: readonly string[]): string {
  const named = ids.slice(0, IDS_NAMED).join(", ");
  return ids.length > IDS_NAMED ? `${named} and ${ids.length - IDS_NAMED} more` : named;
}
