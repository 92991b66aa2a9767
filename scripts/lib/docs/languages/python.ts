/** Python 3: `urllib.request` and `json` from the standard library; `hmac` and `hashlib` for webhooks. */
import type { Json } from "partner-api-devkit/cli";
import type { OperationExample } from "../operation-example.ts";
import {
  API_KEY_VARIABLE,
  BASE_URL_VARIABLE,
  type LiteralSpelling,
  literal,
  literalHeaders,
  quoted,
  readName,
  requestTarget,
  type SampleLanguage,
  snakeCase,
  WEBHOOK_SECRET_VARIABLE,
  type WebhookExample,
  webhookHandling,
} from "./common.ts";

/** A JSON value as a Python literal, indented to `indent` spaces. */
export function pythonLiteral(value: Json, indent = 0): string {
  return literal(value, PYTHON, indent);
}

const PYTHON: LiteralSpelling = {
  step: 4,
  null: "None",
  true: "True",
  false: "False",
  string: quoted,
  key: quoted,
  pair: ": ",
  object: ["{", "}", "{}"],
  array: ["[", "]"],
};

function field(name: string, path: string[]): string {
  let expression = name;
  path.forEach((key, index) => {
    expression =
      index === path.length - 1 ? `${expression}.get(${quoted(key)})` : `(${expression}.get(${quoted(key)}) or {})`;
  });
  return expression;
}

function request(operation: OperationExample): string {
  const { result } = operation;
  const headers = [
    `        "X-API-Key": os.environ[${quoted(API_KEY_VARIABLE)}],`,
    ...literalHeaders(operation).map(([name, value]) => `        ${quoted(name)}: ${quoted(value)},`),
  ];
  const lines = [
    "import json",
    "import os",
    "import urllib.request",
    "from urllib.error import HTTPError",
    "",
    `base_url = os.environ[${quoted(BASE_URL_VARIABLE)}]`,
  ];
  if (operation.body) lines.push(`body = ${pythonLiteral(operation.body.value)}`);
  lines.push(
    "request = urllib.request.Request(",
    `    base_url + ${quoted(requestTarget(operation))},`,
    `    method=${quoted(operation.method.toUpperCase())},`,
    "    headers={",
    ...headers,
    "    },",
  );
  if (operation.body) lines.push("    data=json.dumps(body).encode(),");
  lines.push(
    ")",
    "try:",
    "    with urllib.request.urlopen(request) as response:",
    "        status = response.status",
    "        result = json.load(response)",
    "except HTTPError as error:",
    '    raise SystemExit(f"{error.code} {error.read().decode()}")',
    "",
    "print(status)",
  );
  if (result.fields.length > 0) {
    const name = snakeCase(readName(operation));
    const values = result.fields.map((path) => field(name, path)).join(", ");
    if (result.at === undefined) lines.push(`print(${values})`);
    else if (result.list) lines.push(`for ${name} in result.get(${quoted(result.at)}) or []:`, `    print(${values})`);
    else lines.push(`${name} = result.get(${quoted(result.at)}) or {}`, `print(${values})`);
  }
  return `${lines.join("\n")}\n`;
}

/** Each event's handling: what a receiver of it does with its fields (`webhookLines` in common.ts says what it prints). */
const HANDLERS: Readonly<Record<string, string>> = {
  "company.kyc_link.issued": `company_id = payload.get("companyId", "")
print(f"company {company_id}: KYC {payload.get('kycStatus', '')}; send the director to {payload.get('kycUrl', '')}")
if payload.get("tosAccepted") is True:
    print("terms of service: accepted")
else:
    print(f"terms of service: to accept at {payload.get('tosUrl', '')}")
`,
  "company.kyc_status_changed": `status = payload.get("kycStatus", "")
print(f"company {payload.get('companyId', '')}: KYC {status}")
if status == "approved":
    print("next: the company can use Swap")
elif status == "rejected":
    print("next: tell the company its verification was rejected")
else:
    print("next: wait for the next status")
`,
  "payment_route.created": `route = payload.get("paymentRoute") or {}
source = route.get("source") or {}
destination = route.get("destination") or {}
print(f"{route.get('type', '')} route {route.get('id', '')} ({route.get('status', '')}) for company {payload.get('companyId', '')}")
print(f"in: {source.get('currency', '')} via {source.get('paymentRail', '')} to {route.get('depositAddress', '')}")
print(f"out: {destination.get('currency', '')} via {destination.get('paymentRail', '')}")
`,
  "payment_route.transaction.created": `data = payload.get("data") or {}
route_id = data.get("routeId", "")
if data.get("routeType") == "offramp":
    source = data.get("source") or {}
    destination = data.get("destination") or {}
    print(
        f"offramp route {route_id}: {data.get('incomingAmount', '')} {source.get('currency', '')} in, "
        f"{data.get('convertedAmount', '')} {destination.get('currency', '')} out to {destination.get('bankName', '')}, "
        f"fees {data.get('totalFees', '')}"
    )
elif data.get("routeType") == "onramp":
    print(f"onramp route {route_id}: {data.get('incomingAmount', '')} from {data.get('senderName', '')}, {data.get('convertedAmount', '')} out")
else:
    transaction = payload.get("transaction") or {}
    print(f"route {route_id} transaction {transaction.get('id', '')}: {transaction.get('amount', '')} {transaction.get('currency', '')}")
`,
};

function handler(type: string): string {
  return webhookHandling(type, HANDLERS, (comment, line) => `# ${comment}\nprint(${quoted(line)})\n`);
}

function verifyWebhook(event: WebhookExample): string {
  return `import hashlib
import hmac
import json
import os
import sys


def verify_signature(raw_body: bytes, signature: str, secret: str) -> bool:
    """True when X-Signature is the HMAC-SHA256 of the raw body, compared in constant time."""
    expected = hmac.new(secret.encode(), raw_body, hashlib.sha256).hexdigest().encode()
    # Bytes on both sides: compare_digest refuses a str with non-ASCII characters (TypeError), bytes never.
    return hmac.compare_digest(expected, signature.strip().lower().encode())


# The body exactly as received: verify before parsing, never a re-serialised copy.
raw_body = sys.stdin.buffer.read()
signature = sys.argv[1] if len(sys.argv) > 1 else ""  # the X-Signature header; absent is invalid
if not verify_signature(raw_body, signature, os.environ[${quoted(WEBHOOK_SECRET_VARIABLE)}]):
    raise SystemExit("invalid signature")  # a receiver answers 401
event = json.loads(raw_body)
payload = event.get("payload") or {}
print(event.get("type", ""), event.get("id", ""))  # deduplicate by id: a delivery may come again
${handler(event.type)}`;
}

export const python: SampleLanguage = {
  label: "Python",
  lang: "Python",
  file: "sample.py",
  request,
  webhook: verifyWebhook,
};
