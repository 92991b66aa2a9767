/**
 * Checks of what a caller passes in, shared by every option and parameter check of the client, so each
 * kind of check is written once and every message has the same form: the input's name, what it must be,
 * and what it was.
 */
import { InvalidInputError } from "./errors.ts";

/** Shows a bad value in a message without letting a long one flood it (never used for the API key). */
export function describeValue(value: unknown): string {
  const type = typeof value;
  return value === undefined
    ? "nothing"
    : value === null
      ? "null"
      : type === "string"
        ? JSON.stringify((value as string).length > 40 ? `${(value as string).slice(0, 40)}…` : value)
        : type === "object"
          ? Array.isArray(value)
            ? "an array"
            : "an object"
          : type === "function"
            ? "a function"
            : `${type} ${String(value)}`;
}

/**
 * Throws the `InvalidInputError` every check ends in: "`where``label` must be `form`, got `value`", naming
 * `input`. One sentence shape, built in one place.
 */
export function fail(input: string, label: string, form: string, value: unknown, where = ""): never {
  throw new InvalidInputError(input, `${where}${label} must be ${form}, got ${describeValue(value)}`);
}

/** `value` when it is a whole number from `min` to `max`; otherwise an `InvalidInputError` naming `name`. */
export function checkWholeNumber(value: unknown, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
    fail(name, name, `a whole number ${range}`, value);
  }
  return value;
}

/**
 * Throws an `InvalidInputError` when `object` has a key outside `known` (a misspelt option would otherwise
 * be ignored silently). `input` names the bad input in the error; by default the first unknown key.
 */
export function checkKnownKeys(object: object, known: readonly string[], where: string, input?: string): void {
  const unknown = Object.keys(object).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    throw new InvalidInputError(
      input ?? unknown[0]!,
      `${where} has unknown option ${unknown.map((key) => `"${key}"`).join(", ")}; known: ${known.join(", ")}`,
    );
  }
}
