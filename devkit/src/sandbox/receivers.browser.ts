/**
 * receivers.ts in a browser (partner-api-devkit/msw's browser bundle, devkit/scripts/build.ts): an in-page sandbox
 * listens on no address and resolves no names, so the checks that need Node's address and name lookups (the
 * sandbox's own address, private and link-local ranges) have nothing to hold; a receiver URL must still be http(s)
 * and carry no user name or password, as in Node.
 */
import { receiverUrlForm } from "./receiver-url.ts";

export type { ReceiverPolicy } from "./receivers.ts";

export function receiverUrlRefusal(text: string, _policy: unknown): string | undefined {
  const form = receiverUrlForm(text);
  return "refusal" in form ? form.refusal : undefined;
}

export class ReceiverRefused extends Error {
  override name = "ReceiverRefused";
}
