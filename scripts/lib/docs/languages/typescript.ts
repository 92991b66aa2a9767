/** TypeScript: this project's client (`partner-api-client`), typed by the contract; its webhook kit for signatures. */
import type { Json, JsonObject } from "partner-api-devkit/cli";
import type { OperationExample } from "../operation-example.ts";
import {
  API_KEY_VARIABLE,
  BASE_URL_VARIABLE,
  type LiteralSpelling,
  literal,
  readName,
  type SampleLanguage,
  WEBHOOK_SECRET_VARIABLE,
  type WebhookExample,
  webhookHandling,
} from "./common.ts";

/** The package name partners install; samples import the client from it. */
export const CLIENT_PACKAGE = "partner-api-client";

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A value as a TypeScript literal with unquoted keys where allowed, indented to `indent` spaces. */
export function toTsLiteral(value: Json, indent = 0): string {
  return literal(value, TYPESCRIPT, indent);
}

const TYPESCRIPT: LiteralSpelling = {
  step: 2,
  null: "null",
  string: (text) => JSON.stringify(text),
  key: (key) => (IDENTIFIER.test(key) ? key : JSON.stringify(key)),
  pair: ": ",
  object: ["{", "}", "{}"],
  array: ["[", "]"],
};

function objectOf(pairs: Array<[string, Json]>): JsonObject {
  return Object.fromEntries(pairs);
}

function property(key: string): string {
  return IDENTIFIER.test(key) ? `?.${key}` : `?.[${JSON.stringify(key)}]`;
}

/** The TypeScript sample: this project's client, the operation's path, ids and body from the contract. */
export function typescriptSample(operation: OperationExample): string {
  const { result } = operation;
  const caller = operation.companyId === undefined ? "client" : "company";
  const params: JsonObject = {};
  if (operation.pathParams.length > 0) params.path = objectOf(operation.pathParams);
  if (operation.queryParams.length > 0) params.query = objectOf(operation.queryParams);
  if (operation.headerParams.length > 0) params.header = objectOf(operation.headerParams);
  const init: JsonObject = {};
  if (Object.keys(params).length > 0) init.params = params;
  if (operation.body) init.body = operation.body.value;
  const method = operation.method.toUpperCase();
  const args = [JSON.stringify(operation.path)];
  if (Object.keys(init).length > 0) args.push(toTsLiteral(init));
  const lines = [
    `import { createPartnerClient } from "${CLIENT_PACKAGE}";`,
    "",
    "const client = createPartnerClient({",
    `  apiKey: process.env.${API_KEY_VARIABLE}!,`,
    "  // The address you received with your partner credentials.",
    `  baseUrl: process.env.${BASE_URL_VARIABLE}!,`,
    "});",
  ];
  if (operation.companyId !== undefined) {
    lines.push(
      `const companyId = ${JSON.stringify(operation.companyId)};`,
      "const company = client.forCompany(companyId);",
    );
  }
  lines.push(
    "",
    `const { data, error, response } = await ${caller}.${method}(${args.join(", ")});`,
    "if (error !== undefined) throw error;",
    "console.log(response.status);",
  );
  if (result.fields.length > 0) {
    const name = readName(operation);
    const read = (base: string) => result.fields.map((path) => `${base}${path.map(property).join("")}`).join(", ");
    if (result.at === undefined) lines.push(`console.log(${read("data")});`);
    else if (result.list)
      lines.push(`for (const ${name} of data${property(result.at)} ?? []) {`, `  console.log(${read(name)});`, "}");
    else lines.push(`const ${name} = data${property(result.at)};`, `console.log(${read(name)});`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Each event's handling: what a receiver of it does with its fields, typed by the contract once `event.type` is
 * narrowed (`webhookLines` in common.ts says what it prints).
 */
const HANDLERS: Readonly<Record<string, string>> = {
  "company.kyc_link.issued": `if (event.type === "company.kyc_link.issued") {
  const { companyId = "", kycStatus = "", kycUrl = "", tosUrl = "", tosAccepted } = event.payload;
  console.log(\`company \${companyId}: KYC \${kycStatus}; send the director to \${kycUrl}\`);
  console.log(tosAccepted === true ? "terms of service: accepted" : \`terms of service: to accept at \${tosUrl}\`);
}
`,
  "company.kyc_status_changed": `if (event.type === "company.kyc_status_changed") {
  const { companyId = "", kycStatus } = event.payload;
  console.log(\`company \${companyId}: KYC \${kycStatus ?? ""}\`);
  switch (kycStatus) {
    case "approved":
      console.log("next: the company can use Swap");
      break;
    case "rejected":
      console.log("next: tell the company its verification was rejected");
      break;
    default:
      console.log("next: wait for the next status");
  }
}
`,
  "payment_route.created": `if (event.type === "payment_route.created") {
  const { companyId = "", paymentRoute: route } = event.payload;
  console.log(\`\${route?.type ?? ""} route \${route?.id ?? ""} (\${route?.status ?? ""}) for company \${companyId}\`);
  console.log(\`in: \${route?.source?.currency ?? ""} via \${route?.source?.paymentRail ?? ""} to \${route?.depositAddress ?? ""}\`);
  console.log(\`out: \${route?.destination?.currency ?? ""} via \${route?.destination?.paymentRail ?? ""}\`);
}
`,
  "payment_route.transaction.created": `if (event.type === "payment_route.transaction.created") {
  const { data, transaction } = event.payload;
  const routeId = data?.routeId ?? "";
  // data is one of two kinds, told apart by routeType (which, like every field, may be absent).
  if (data?.routeType === "offramp") {
    const { incomingAmount = "", convertedAmount = "", totalFees = "", source, destination } = data;
    console.log(
      \`offramp route \${routeId}: \${incomingAmount} \${source?.currency ?? ""} in, \` +
        \`\${convertedAmount} \${destination?.currency ?? ""} out to \${destination?.bankName ?? ""}, fees \${totalFees}\`,
    );
  } else if (data?.routeType === "onramp") {
    const { incomingAmount = "", convertedAmount = "", senderName = "" } = data;
    console.log(\`onramp route \${routeId}: \${incomingAmount} from \${senderName}, \${convertedAmount} out\`);
  } else {
    console.log(\`route \${routeId} transaction \${transaction?.id ?? ""}: \${transaction?.amount ?? ""} \${transaction?.currency ?? ""}\`);
  }
}
`,
};

function handler(type: string): string {
  return webhookHandling(type, HANDLERS, (comment, line) => `// ${comment}\nconsole.log(${JSON.stringify(line)});\n`);
}

function verifyWebhook(event: WebhookExample): string {
  return `import { readFileSync } from "node:fs";
import { constructWebhookEvent, type WebhookEvent, WebhookSignatureError } from "${CLIENT_PACKAGE}";

// The body exactly as received (your framework's raw body): verify before parsing.
const rawBody = readFileSync(0);
const signature = process.argv[2] ?? ""; // the X-Signature header; absent is invalid
let event: WebhookEvent;
try {
  // Throws WebhookSignatureError when the signature does not match; returns the typed event.
  event = constructWebhookEvent(rawBody, signature, process.env.${WEBHOOK_SECRET_VARIABLE}!);
} catch (error) {
  if (!(error instanceof WebhookSignatureError)) throw error;
  console.error("invalid signature"); // a receiver answers 401
  process.exit(1);
}
console.log(event.type, event.id); // deduplicate by id: a delivery may come again
${handler(event.type)}`;
}

export const typescript: SampleLanguage = {
  label: "TypeScript",
  lang: "TypeScript",
  file: "sample.ts",
  request: typescriptSample,
  webhook: verifyWebhook,
};
