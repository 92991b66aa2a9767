/**
 * What the sandbox takes in one request, where the API description sets no bound: a request it could not keep
 * (a body too large to write on every change, too deep to save, a string that makes every later write and
 * list of the account cost its size) is refused before it changes anything. The picks table of
 * docs/partners.md lists each limit; a limit the API description does state (a `maxLength`) is checked from
 * the contract, as every other rule.
 */
import type { Issue } from "../contract/router.ts";

/** The largest request body, in bytes: 413 above it. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** The longest string (value or property name) in a request body, in characters: 422 longer. */
export const MAX_STRING_LENGTH = 4096;
/** The longest API key, in characters: 401 longer (a key names an account, kept in memory and in the state). */
export const MAX_API_KEY_LENGTH = 512;
/**
 * How many accounts one sandbox holds (about 6.5 KB of memory each once seeded: 650 MB at the limit): a key
 * that would be one more is refused with 403 until a reset.
 */
export const MAX_ACCOUNTS = 100_000;
/** Webhook endpoints one account may register (as Stripe's test mode allows 16): 422 for one more. */
export const MAX_WEBHOOK_ENDPOINTS = 16;

/**
 * Every string in a parsed body (values and property names) longer than `max`, as validation issues naming
 * where it is. The body nests at most MAX_JSON_DEPTH levels (../common/json-depth.ts, checked first), so the walk's depth is bounded.
 */
export function longStrings(value: unknown, max: number, location: string[] = ["body"]): Issue[] {
  const issues: Issue[] = [];
  visitStrings(value, max, [...location], issues);
  return issues;
}

/** One node of longStrings' walk; `at` is the path to it, pushed and popped (copied only into an issue). */
function visitStrings(node: unknown, max: number, at: string[], issues: Issue[]): void {
  if (typeof node === "string") {
    if (node.length > max) issues.push(tooLong([...at], node.length, max));
  } else if (Array.isArray(node)) {
    for (let index = 0; index < node.length; index++) {
      at.push(String(index));
      visitStrings(node[index], max, at, issues);
      at.pop();
    }
  } else if (node !== null && typeof node === "object") {
    for (const key of Object.keys(node)) {
      if (key.length > max)
        issues.push({
          location: [...at],
          message: `${at.join("/")} has a property name ${key.length} characters long; the sandbox takes at most ${max} characters in a string`,
        });
      else {
        at.push(key);
        visitStrings((node as Record<string, unknown>)[key], max, at, issues);
        at.pop();
      }
    }
  }
}

function tooLong(at: string[], length: number, max: number): Issue {
  return {
    location: at,
    message: `${at.join("/")} is ${length} characters long; the sandbox takes at most ${max} characters in a string`,
  };
}
