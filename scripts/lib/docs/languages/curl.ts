/**
 * curl: the request as one command, with the key and base address from the environment. On a webhook page, a
 * signed test delivery to your receiver: the example event signed with `openssl` as the service signs it.
 */
import type { OperationExample } from "../operation-example.ts";
import {
  API_KEY_VARIABLE,
  BASE_URL_VARIABLE,
  literalHeaders,
  requestTarget,
  type SampleLanguage,
  SIGNATURE_HEADER,
  WEBHOOK_SECRET_VARIABLE,
} from "./common.ts";

/** Where the curl webhook sample sends its delivery. */
export const RECEIVER_URL_VARIABLE = "RECEIVER_URL";

export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The curl sample: the same request, with the API key and base address from the environment. */
export function curlSample(operation: OperationExample): string {
  const lines = [
    `curl -X ${operation.method.toUpperCase()} "$${BASE_URL_VARIABLE}${requestTarget(operation)}"`,
    `-H "X-API-Key: $${API_KEY_VARIABLE}"`,
    ...literalHeaders(operation).map(([name, value]) =>
      /^[\w./:+-]*$/.test(value) ? `-H "${name}: ${value}"` : `-H ${shellQuote(`${name}: ${value}`)}`,
    ),
  ];
  if (operation.body) lines.push(`-d ${shellQuote(JSON.stringify(operation.body.value, null, 2))}`);
  return `${lines.join(" \\\n  ")}\n`;
}

/** A signed delivery of `body` (the event exactly as sent) to `$RECEIVER_URL`, signed with the endpoint's secret. */
export function signedDeliverySample(body: string): string {
  return `# Sends a signed test delivery to your receiver, as the service would.
body=${shellQuote(body)}
signature=$(printf '%s' "$body" | openssl dgst -sha256 -hmac "$${WEBHOOK_SECRET_VARIABLE}" | sed 's/^.*= //')
curl -X POST "$${RECEIVER_URL_VARIABLE}" \\
  -H "Content-Type: application/json" \\
  -H "${SIGNATURE_HEADER}: $signature" \\
  --data-raw "$body"
`;
}

export const curl: SampleLanguage = {
  label: "curl",
  lang: "Shell",
  file: "sample.sh",
  request: curlSample,
  webhook: (event) => signedDeliverySample(event.body),
};
