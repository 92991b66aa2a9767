/** Ruby: `net/http` and `json` from the standard library; `openssl` for webhooks. */
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
  snakeCase,
  WEBHOOK_SECRET_VARIABLE,
  type WebhookExample,
  webhookHandling,
} from "./common.ts";

const rubyString = singleQuoted;

/** A JSON value as a Ruby literal (string keys, `nil`), indented to `indent` spaces. */
export function rubyLiteral(value: Json, indent = 0): string {
  return literal(value, RUBY, indent);
}

const RUBY: LiteralSpelling = {
  step: 2,
  null: "nil",
  string: rubyString,
  key: rubyString,
  pair: " => ",
  object: ["{", "}", "{}"],
  array: ["[", "]"],
};

const REQUEST_CLASS: Record<string, string> = {
  get: "Get",
  post: "Post",
  put: "Put",
  patch: "Patch",
  delete: "Delete",
  head: "Head",
  options: "Options",
};

function field(name: string, path: string[]): string {
  return path.length === 1 ? `${name}[${rubyString(path[0]!)}]` : `${name}.dig(${path.map(rubyString).join(", ")})`;
}

function request(operation: OperationExample): string {
  const { result } = operation;
  const method = REQUEST_CLASS[operation.method];
  if (!method) throw new Error(`${operation.operationId}: no Ruby request class for ${operation.method}`);
  const lines = [
    "require 'json'",
    "require 'net/http'",
    "",
    `uri = URI(ENV.fetch(${rubyString(BASE_URL_VARIABLE)}) + ${rubyString(requestTarget(operation))})`,
    `request = Net::HTTP::${method}.new(uri)`,
    `request['X-API-Key'] = ENV.fetch(${rubyString(API_KEY_VARIABLE)})`,
    ...literalHeaders(operation).map(([name, value]) => `request[${rubyString(name)}] = ${rubyString(value)}`),
  ];
  if (operation.body) lines.push(`request.body = JSON.generate(${rubyLiteral(operation.body.value)})`);
  lines.push(
    "response = Net::HTTP.start(uri.hostname, uri.port, use_ssl: uri.scheme == 'https') do |http|",
    "  http.request(request)",
    "end",
    'abort "#{response.code} #{response.body}" unless response.is_a?(Net::HTTPSuccess)',
    "",
    "puts response.code",
  );
  if (result.fields.length > 0) {
    lines.push("result = JSON.parse(response.body)");
    const name = snakeCase(readName(operation));
    const values = `[${result.fields.map((path) => field(name, path)).join(", ")}].join(' ')`;
    if (result.at === undefined) lines.push(`puts ${values}`);
    else if (result.list)
      lines.push(`(result[${rubyString(result.at)}] || []).each do |${name}|`, `  puts ${values}`, "end");
    else lines.push(`${name} = result[${rubyString(result.at)}] || {}`, `puts ${values}`);
  }
  return `${lines.join("\n")}\n`;
}

/** Each event's handling: what a receiver of it does with its fields (`webhookLines` in common.ts says what it prints). */
const HANDLERS: Readonly<Record<string, string>> = {
  "company.kyc_link.issued": `puts "company #{payload['companyId']}: KYC #{payload['kycStatus']}; send the director to #{payload['kycUrl']}"
puts payload['tosAccepted'] == true ? 'terms of service: accepted' : "terms of service: to accept at #{payload['tosUrl']}"
`,
  "company.kyc_status_changed": `status = payload['kycStatus']
puts "company #{payload['companyId']}: KYC #{status}"
puts case status
     when 'approved' then 'next: the company can use Swap'
     when 'rejected' then 'next: tell the company its verification was rejected'
     else 'next: wait for the next status'
     end
`,
  "payment_route.created": `route = payload['paymentRoute'] || {}
puts "#{route['type']} route #{route['id']} (#{route['status']}) for company #{payload['companyId']}"
puts "in: #{route.dig('source', 'currency')} via #{route.dig('source', 'paymentRail')} to #{route['depositAddress']}"
puts "out: #{route.dig('destination', 'currency')} via #{route.dig('destination', 'paymentRail')}"
`,
  "payment_route.transaction.created": `data = payload['data'] || {}
case data['routeType']
when 'offramp'
  puts "offramp route #{data['routeId']}: #{data['incomingAmount']} #{data.dig('source', 'currency')} in, " \\
       "#{data['convertedAmount']} #{data.dig('destination', 'currency')} out to #{data.dig('destination', 'bankName')}, " \\
       "fees #{data['totalFees']}"
when 'onramp'
  puts "onramp route #{data['routeId']}: #{data['incomingAmount']} from #{data['senderName']}, #{data['convertedAmount']} out"
else
  transaction = payload['transaction'] || {}
  puts "route #{data['routeId']} transaction #{transaction['id']}: #{transaction['amount']} #{transaction['currency']}"
end
`,
};

function handler(type: string): string {
  return webhookHandling(type, HANDLERS, (comment, line) => `# ${comment}\nputs ${rubyString(line)}\n`);
}

function verifyWebhook(event: WebhookExample): string {
  return `require 'json'
require 'openssl'

# True when X-Signature is the HMAC-SHA256 of the raw body, compared in constant time.
def valid_signature?(raw_body, signature, secret)
  expected = OpenSSL::HMAC.hexdigest('SHA256', secret, raw_body)
  OpenSSL.secure_compare(expected, signature.strip.downcase)
end

# The body exactly as received: verify before parsing, never a re-serialised copy.
raw_body = $stdin.binmode.read
signature = ARGV.fetch(0, '') # the X-Signature header; absent is invalid
abort 'invalid signature' unless valid_signature?(raw_body, signature, ENV.fetch(${rubyString(WEBHOOK_SECRET_VARIABLE)})) # a receiver answers 401
event = JSON.parse(raw_body)
payload = event['payload'] || {}
puts [event['type'], event['id']].join(' ') # deduplicate by id: a delivery may come again
${handler(event.type)}`;
}

export const ruby: SampleLanguage = { label: "Ruby", lang: "Ruby", file: "sample.rb", request, webhook: verifyWebhook };
