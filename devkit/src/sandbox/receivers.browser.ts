/**
 * receivers.ts in a browser (partner-api-devkit/msw's browser bundle, devkit/scripts/build.ts): an in-page sandbox
 * listens on no address and resolves no names, so the checks that need Node's address and name lookups (the
 * sandbox's own address, private and link-local ranges) have nothing to hold; a receiver URL must still be http(s)
 * and carry no user name or password, as in Node.
 */
export type { ReceiverPolicy } from "./receivers.ts";

export function receiverUrlRefusal(text: string, _policy: unknown): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "is not a URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `must be http: or https:, not ${url.protocol}`;
  if (url.username !== "" || url.password !== "")
    return "must not carry a user name or password (it would be shown wherever the URL is): sign-in for a receiver is its signing secret";
  return undefined;
}

export class ReceiverRefused extends Error {
  override name = "ReceiverRefused";
}
