/** The ULID form, from the contract's `components.schemas.Ulid`. */
import { ulid } from "../generated/contract.ts";
import { InvalidInputError } from "./errors.ts";

const ULID = new RegExp(ulid.pattern);

/** The expected form, for error messages. */
export const ULID_FORM = `a ULID (26 characters of Crockford base32: digits and upper-case letters without I, L, O, U; e.g. ${ulid.example})`;

export function isUlid(value: unknown): value is string {
  return typeof value === "string" && ULID.test(value);
}

/** Shows a bad value in a message without letting a long one flood it. */
export function describeValue(value: unknown): string {
  if (typeof value !== "string") return value === null ? "null" : typeof value;
  const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  return JSON.stringify(shown);
}

/** Throws an `InvalidInputError` naming `name` unless `value` is a ULID. */
export function assertUlid(value: unknown, name: string): asserts value is string {
  if (!isUlid(value)) throw new InvalidInputError(name, `${name} must be ${ULID_FORM}, got ${describeValue(value)}`);
}
