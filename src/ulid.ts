/** The ULID form, from the contract's `components.schemas.Ulid`. */
import { ulid } from "../generated/contract.ts";
import { fail } from "./input.ts";

const ULID = new RegExp(ulid.pattern);

/** The expected form, for error messages. */
export const ULID_FORM = `a ULID (26 characters of Crockford base32, e.g. ${ulid.example})`;

export function isUlid(value: unknown): value is string {
  return typeof value === "string" && ULID.test(value);
}

/** `value` when it is a ULID; otherwise an `InvalidInputError` naming `name`. */
export function checkUlid(value: unknown, name: string): string {
  return isUlid(value) ? value : fail(name, name, ULID_FORM, value);
}
