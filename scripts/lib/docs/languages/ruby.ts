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

function verifyWebhook(): string {
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
abort 'invalid signature' unless valid_signature?(raw_body, signature, ENV.fetch(${rubyString(WEBHOOK_SECRET_VARIABLE)}))
event = JSON.parse(raw_body)
puts [event['type'], event['id']].join(' ')
`;
}

export const ruby: SampleLanguage = { label: "Ruby", lang: "Ruby", file: "sample.rb", request, webhook: verifyWebhook };
