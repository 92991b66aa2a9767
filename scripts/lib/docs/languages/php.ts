/** PHP: the curl extension and `json_encode`/`json_decode`; `hash_hmac` and `hash_equals` for webhooks. */
import type { Json } from "partner-api-devkit/cli";
import type { OperationExample } from "../operation-example.ts";
import {
  API_KEY_VARIABLE,
  BASE_URL_VARIABLE,
  type LiteralSpelling,
  literal,
  literalHeaders,
  readName,
  requestTarget,
  type SampleLanguage,
  singleQuoted,
  WEBHOOK_SECRET_VARIABLE,
  type WebhookExample,
  webhookHandling,
} from "./common.ts";

const phpString = singleQuoted;

/** A JSON value as a PHP literal: arrays for lists and objects, `(object) []` for an empty object, so it encodes as `{}`. */
export function phpLiteral(value: Json, indent = 0): string {
  return literal(value, PHP, indent);
}

const PHP: LiteralSpelling = {
  step: 4,
  null: "null",
  string: phpString,
  key: phpString,
  pair: " => ",
  object: ["[", "]", "(object) []"],
  array: ["[", "]"],
};

function field(name: string, path: string[]): string {
  return `$${name}${path.map((key) => `[${phpString(key)}]`).join("")} ?? ''`;
}

function request(operation: OperationExample): string {
  const { result } = operation;
  const headers = [
    `    'X-API-Key: ' . getenv(${phpString(API_KEY_VARIABLE)}),`,
    ...literalHeaders(operation).map(([name, value]) => `    ${phpString(`${name}: ${value}`)},`),
  ];
  const lines = [
    "<?php",
    `$curl = curl_init(getenv(${phpString(BASE_URL_VARIABLE)}) . ${phpString(requestTarget(operation))});`,
    `curl_setopt($curl, CURLOPT_CUSTOMREQUEST, ${phpString(operation.method.toUpperCase())});`,
    "curl_setopt($curl, CURLOPT_RETURNTRANSFER, true);",
    "curl_setopt($curl, CURLOPT_HTTPHEADER, [",
    ...headers,
    "]);",
  ];
  if (operation.body)
    lines.push(`curl_setopt($curl, CURLOPT_POSTFIELDS, json_encode(${phpLiteral(operation.body.value)}));`);
  lines.push(
    "$body = curl_exec($curl);",
    "if ($body === false) {",
    "    fwrite(STDERR, curl_error($curl) . PHP_EOL);",
    "    exit(1);",
    "}",
    "$status = curl_getinfo($curl, CURLINFO_RESPONSE_CODE);",
    "if ($status >= 300) {",
    '    fwrite(STDERR, "$status $body" . PHP_EOL);',
    "    exit(1);",
    "}",
    "",
    "echo $status, PHP_EOL;",
  );
  if (result.fields.length > 0) {
    lines.push("$result = json_decode($body, true);");
    const name = readName(operation);
    const values = `echo implode(' ', [${result.fields.map((path) => field(name, path)).join(", ")}]), PHP_EOL;`;
    if (result.at === undefined) lines.push(values);
    else if (result.list)
      lines.push(`foreach ($result[${phpString(result.at)}] ?? [] as $${name}) {`, `    ${values}`, "}");
    else lines.push(`$${name} = $result[${phpString(result.at)}] ?? [];`, values);
  }
  return `${lines.join("\n")}\n`;
}

/** Each event's handling: what a receiver of it does with its fields (`webhookLines` in common.ts says what it prints). */
const HANDLERS: Readonly<Record<string, string>> = {
  "company.kyc_link.issued": `echo 'company ', $payload['companyId'] ?? '', ': KYC ', $payload['kycStatus'] ?? '',
    '; send the director to ', $payload['kycUrl'] ?? '', PHP_EOL;
echo ($payload['tosAccepted'] ?? false) === true
    ? 'terms of service: accepted'
    : 'terms of service: to accept at ' . ($payload['tosUrl'] ?? ''), PHP_EOL;
`,
  "company.kyc_status_changed": `$status = $payload['kycStatus'] ?? '';
echo 'company ', $payload['companyId'] ?? '', ': KYC ', $status, PHP_EOL;
echo match ($status) {
    'approved' => 'next: the company can use Swap',
    'rejected' => 'next: tell the company its verification was rejected',
    default => 'next: wait for the next status',
}, PHP_EOL;
`,
  "payment_route.created": `$route = $payload['paymentRoute'] ?? [];
echo $route['type'] ?? '', ' route ', $route['id'] ?? '', ' (', $route['status'] ?? '', ') for company ',
    $payload['companyId'] ?? '', PHP_EOL;
echo 'in: ', $route['source']['currency'] ?? '', ' via ', $route['source']['paymentRail'] ?? '', ' to ',
    $route['depositAddress'] ?? '', PHP_EOL;
echo 'out: ', $route['destination']['currency'] ?? '', ' via ', $route['destination']['paymentRail'] ?? '', PHP_EOL;
`,
  "payment_route.transaction.created": `$data = $payload['data'] ?? [];
$routeId = $data['routeId'] ?? '';
switch ($data['routeType'] ?? null) {
    case 'offramp':
        echo "offramp route $routeId: ", $data['incomingAmount'] ?? '', ' ', $data['source']['currency'] ?? '', ' in, ',
            $data['convertedAmount'] ?? '', ' ', $data['destination']['currency'] ?? '', ' out to ',
            $data['destination']['bankName'] ?? '', ', fees ', $data['totalFees'] ?? '', PHP_EOL;
        break;
    case 'onramp':
        echo "onramp route $routeId: ", $data['incomingAmount'] ?? '', ' from ', $data['senderName'] ?? '', ', ',
            $data['convertedAmount'] ?? '', ' out', PHP_EOL;
        break;
    default:
        $transaction = $payload['transaction'] ?? [];
        echo "route $routeId transaction ", $transaction['id'] ?? '', ': ', $transaction['amount'] ?? '', ' ',
            $transaction['currency'] ?? '', PHP_EOL;
}
`,
};

function handler(type: string): string {
  return webhookHandling(type, HANDLERS, (comment, line) => `// ${comment}\necho ${phpString(line)}, PHP_EOL;\n`);
}

function verifyWebhook(event: WebhookExample): string {
  return `<?php
// True when X-Signature is the HMAC-SHA256 of the raw body, compared in constant time.
function verify_signature(string $rawBody, string $signature, string $secret): bool
{
    $expected = hash_hmac('sha256', $rawBody, $secret);
    return hash_equals($expected, strtolower(trim($signature)));
}

// The body exactly as received (php://input in a web request): verify before parsing.
$rawBody = file_get_contents('php://stdin');
$signature = $argv[1] ?? ''; // the X-Signature header; absent is invalid ($_SERVER['HTTP_X_SIGNATURE'] in a web request)
if (!verify_signature($rawBody, $signature, getenv(${phpString(WEBHOOK_SECRET_VARIABLE)}))) {
    fwrite(STDERR, 'invalid signature' . PHP_EOL); // a receiver answers 401
    exit(1);
}
$event = json_decode($rawBody, true);
$payload = $event['payload'] ?? [];
echo $event['type'] ?? '', ' ', $event['id'] ?? '', PHP_EOL; // deduplicate by id: a delivery may come again
${handler(event.type)}`;
}

export const php: SampleLanguage = { label: "PHP", lang: "PHP", file: "sample.php", request, webhook: verifyWebhook };
