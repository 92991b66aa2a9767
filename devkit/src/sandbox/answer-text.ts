/**
 * An answer's JSON text, with the text of each frozen object in it kept for the next answer that holds the same
 * object. The store's records are frozen whole (store/tables.ts `deepFreeze`: a frozen object is one that was frozen
 * with everything in it) and never change; a change puts a new object. So the text of a record, or of a part of
 * one (a card's `card`), stays right as long as the object lives, and a list of 20 cards is 20 texts joined
 * rather than 20 cards serialised again on every call. Gives exactly what `JSON.stringify` gives.
 */

/** Each frozen object's JSON text, made on first use; dropped with the object. */
const texts = new WeakMap<object, string>();

/** A frozen object's JSON text, kept; anything else serialised as it is. */
function valueText(value: unknown): string | undefined {
  if (value === null || typeof value !== "object" || !Object.isFrozen(value)) return JSON.stringify(value);
  let text = texts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    texts.set(value, text);
  }
  return text;
}

/**
 * The JSON text of an answer's body: its own fields (and a list's items) a frozen object's kept text where they are
 * one. Only a plain object and the plain arrays directly in it are walked here; anything else is JSON.stringify's.
 */
export function answerText(body: unknown): string {
  if (
    body === null ||
    typeof body !== "object" ||
    Array.isArray(body) ||
    Object.getPrototypeOf(body) !== Object.prototype
  )
    return JSON.stringify(body);
  if (Object.isFrozen(body) || typeof (body as { toJSON?: unknown }).toJSON === "function")
    return valueText(body) as string;
  let text = "{";
  for (const key of Object.keys(body)) {
    const value = (body as Record<string, unknown>)[key];
    let part: string | undefined;
    if (Array.isArray(value) && !Object.isFrozen(value)) {
      part = "[";
      for (let index = 0; index < value.length; index++) {
        // As JSON.stringify writes an array's member that has no JSON form (undefined, a function): null.
        const item = valueText(value[index]);
        part += `${index === 0 ? "" : ","}${item === undefined ? "null" : item}`;
      }
      part += "]";
    } else part = valueText(value);
    // A field with no JSON form (undefined, a function, a symbol) is left out, as JSON.stringify leaves it out.
    if (part === undefined) continue;
    text += `${text.length === 1 ? "" : ","}${JSON.stringify(key)}:${part}`;
  }
  return `${text}}`;
}
