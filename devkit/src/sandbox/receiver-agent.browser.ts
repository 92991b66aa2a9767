/**
 * receiver-agent.ts in a browser (partner-api-devkit/msw's browser bundle, devkit/scripts/build.ts): there is no
 * undici and no name lookup to guard, so deliveries go through the page's own `fetch` (and the partner's MSW
 * handlers) with no dispatcher; the browser's own rules bound where a page may send.
 */
import type { ReceiverPolicy } from "./receivers.ts";

export interface ReceiverAgent {
  close(): Promise<void>;
}

export function receiverAgent(_policy: ReceiverPolicy): ReceiverAgent | undefined {
  return undefined;
}
