/**
 * C#: `HttpClient` from the base class library; the body built and the answer read with Json.NET
 * (`Newtonsoft.Json`), which runs on .NET Framework 4.5+, .NET Core and .NET 5+, and Mono alike. Written in the C#
 * that Mono's compiler takes (no top-level statements, no `using var`, no async `Main`), so it also runs where only
 * Mono is.
 * Webhooks: `HMACSHA256` and a constant-time comparison written out (`CryptographicOperations.FixedTimeEquals`
 * exists only on .NET Core 2.1+).
 */
import { isObject, type Json } from "partner-api-devkit/cli";
import type { OperationExample } from "../operation-example.ts";
import {
  API_KEY_VARIABLE,
  BASE_URL_VARIABLE,
  literalHeaders,
  pascalCase,
  quoted,
  readName,
  requestTarget,
  type SampleLanguage,
  WEBHOOK_SECRET_VARIABLE,
  type WebhookExample,
  webhookHandling,
} from "./common.ts";

/** The NuGet package the samples build bodies and read answers with. */
export const JSON_NET = "Newtonsoft.Json";

/** A JSON value as a Json.NET expression (`new JObject { ["name"] = "…" }`), indented to `indent` spaces. */
export function csharpLiteral(value: Json, indent = 0): string {
  const pad = " ".repeat(indent);
  const inner = " ".repeat(indent + 4);
  if (value === null) return "JValue.CreateNull()";
  if (Array.isArray(value)) {
    if (value.length === 0) return "new JArray()";
    if (value.every((item) => item === null || typeof item !== "object"))
      return `new JArray(${value.map((item) => csharpLiteral(item)).join(", ")})`;
    return `new JArray(\n${value.map((item) => `${inner}${csharpLiteral(item, indent + 4)}`).join(",\n")})`;
  }
  if (isObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return "new JObject()";
    return `new JObject\n${pad}{\n${entries.map(([key, item]) => `${inner}[${quoted(key)}] = ${csharpLiteral(item, indent + 4)},`).join("\n")}\n${pad}}`;
  }
  return JSON.stringify(value);
}

const STANDARD_METHODS: Record<string, string> = {
  get: "HttpMethod.Get",
  post: "HttpMethod.Post",
  put: "HttpMethod.Put",
  delete: "HttpMethod.Delete",
};

function field(name: string, path: string[]): string {
  return `${name}${path.map((key) => `?[${quoted(key)}]`).join("")}`;
}

function request(operation: OperationExample): string {
  const { result } = operation;
  const method = STANDARD_METHODS[operation.method] ?? `new HttpMethod(${quoted(operation.method.toUpperCase())})`;
  const headers = literalHeaders(operation).filter(([name]) => name !== "Content-Type");
  const lines = [
    "using System;",
    "using System.Net.Http;",
    ...(operation.body ? ["using System.Text;"] : []),
    "using System.Threading.Tasks;",
    ...(operation.body || result.fields.length > 0 ? ["using Newtonsoft.Json.Linq;"] : []),
    "",
    `class ${pascalCase(operation.operationId)}`,
    "{",
    "    // An async Main needs C# 7.1; this form compiles with every C# compiler, Mono's too.",
    "    static void Main() => Run().GetAwaiter().GetResult();",
    "",
    "    static async Task Run()",
    "    {",
    `        var baseUrl = Environment.GetEnvironmentVariable(${quoted(BASE_URL_VARIABLE)});`,
    `        var request = new HttpRequestMessage(${method}, baseUrl + ${quoted(requestTarget(operation))});`,
    `        request.Headers.Add("X-API-Key", Environment.GetEnvironmentVariable(${quoted(API_KEY_VARIABLE)}));`,
    ...headers.map(([name, value]) => `        request.Headers.Add(${quoted(name)}, ${quoted(value)});`),
  ];
  if (operation.body) {
    lines.push(
      `        var body = ${csharpLiteral(operation.body.value, 8)};`,
      '        request.Content = new StringContent(body.ToString(), Encoding.UTF8, "application/json");',
    );
  }
  lines.push(
    "        var client = new HttpClient();",
    "        var response = await client.SendAsync(request);",
    "        var text = await response.Content.ReadAsStringAsync();",
    "        if (!response.IsSuccessStatusCode)",
    "        {",
    '            Console.Error.WriteLine((int)response.StatusCode + " " + text);',
    "            Environment.Exit(1);",
    "        }",
    "",
    "        Console.WriteLine((int)response.StatusCode);",
  );
  if (result.fields.length > 0) {
    lines.push("        JToken result = JObject.Parse(text);");
    const name = readName(operation);
    const values = result.fields.map((path) => `{${field(name, path)}}`).join(" ");
    if (result.at === undefined) lines.push(`        Console.WriteLine($"${values}");`);
    else if (result.list)
      lines.push(
        `        foreach (var ${name} in result[${quoted(result.at)}] ?? new JArray())`,
        "        {",
        `            Console.WriteLine($"${values}");`,
        "        }",
      );
    else lines.push(`        var ${name} = result[${quoted(result.at)}];`, `        Console.WriteLine($"${values}");`);
  }
  lines.push("    }", "}");
  return `${lines.join("\n")}\n`;
}

/** Each event's handling: what a receiver of it does with its fields (`webhookLines` in common.ts says what it prints). */
const HANDLERS: Readonly<Record<string, string>> = {
  "company.kyc_link.issued": `        Console.WriteLine($"company {payload["companyId"]}: KYC {payload["kycStatus"]}; send the director to {payload["kycUrl"]}");
        if ((bool?)payload["tosAccepted"] == true)
        {
            Console.WriteLine("terms of service: accepted");
        }
        else
        {
            Console.WriteLine($"terms of service: to accept at {payload["tosUrl"]}");
        }`,
  "company.kyc_status_changed": `        var status = (string)payload["kycStatus"];
        Console.WriteLine($"company {payload["companyId"]}: KYC {status}");
        switch (status)
        {
            case "approved":
                Console.WriteLine("next: the company can use Swap");
                break;
            case "rejected":
                Console.WriteLine("next: tell the company its verification was rejected");
                break;
            default:
                Console.WriteLine("next: wait for the next status");
                break;
        }`,
  "payment_route.created": `        var route = payload["paymentRoute"] as JObject ?? new JObject();
        Console.WriteLine($"{route["type"]} route {route["id"]} ({route["status"]}) for company {payload["companyId"]}");
        Console.WriteLine($"in: {route.SelectToken("source.currency")} via {route.SelectToken("source.paymentRail")} to {route["depositAddress"]}");
        Console.WriteLine($"out: {route.SelectToken("destination.currency")} via {route.SelectToken("destination.paymentRail")}");`,
  "payment_route.transaction.created": `        var data = payload["data"] as JObject ?? new JObject();
        var routeId = data["routeId"];
        switch ((string)data["routeType"])
        {
            case "offramp":
                Console.WriteLine($"offramp route {routeId}: {data["incomingAmount"]} {data.SelectToken("source.currency")} in, " +
                    $"{data["convertedAmount"]} {data.SelectToken("destination.currency")} out to {data.SelectToken("destination.bankName")}, " +
                    $"fees {data["totalFees"]}");
                break;
            case "onramp":
                Console.WriteLine($"onramp route {routeId}: {data["incomingAmount"]} from {data["senderName"]}, {data["convertedAmount"]} out");
                break;
            default:
                var transaction = payload["transaction"] as JObject ?? new JObject();
                Console.WriteLine($"route {routeId} transaction {transaction["id"]}: {transaction["amount"]} {transaction["currency"]}");
                break;
        }`,
};

function handler(type: string): string {
  return webhookHandling(
    type,
    HANDLERS,
    (comment, line) => `        // ${comment}\n        Console.WriteLine(${quoted(line)});`,
  );
}

function verifyWebhook(event: WebhookExample): string {
  return `using System;
using System.IO;
using System.Security.Cryptography;
using System.Text;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

class VerifyWebhook
{
    // True when X-Signature is the HMAC-SHA256 of the raw body, compared in constant time.
    static bool ValidSignature(byte[] rawBody, string signature, string secret)
    {
        byte[] digest;
        using (var hmac = new HMACSHA256(Encoding.UTF8.GetBytes(secret)))
        {
            digest = hmac.ComputeHash(rawBody);
        }
        var expected = BitConverter.ToString(digest).Replace("-", "").ToLowerInvariant();
        var given = signature.Trim().ToLowerInvariant();
        if (given.Length != expected.Length) return false;
        var difference = 0;
        for (var i = 0; i < expected.Length; i++) difference |= expected[i] ^ given[i];
        return difference == 0;
    }

    static void Main(string[] args)
    {
        // The body exactly as received: verify before parsing, never a re-serialised copy.
        var buffer = new MemoryStream();
        Console.OpenStandardInput().CopyTo(buffer);
        var rawBody = buffer.ToArray();
        var signature = args.Length > 0 ? args[0] : ""; // the X-Signature header; absent is invalid
        if (!ValidSignature(rawBody, signature, Environment.GetEnvironmentVariable(${quoted(WEBHOOK_SECRET_VARIABLE)})))
        {
            Console.Error.WriteLine("invalid signature"); // a receiver answers 401
            Environment.Exit(1);
        }
        // Dates stay text: the handling prints what was sent.
        var reader = new JsonTextReader(new StringReader(Encoding.UTF8.GetString(rawBody))) { DateParseHandling = DateParseHandling.None };
        var webhookEvent = JObject.Load(reader);
        var payload = webhookEvent["payload"] as JObject ?? new JObject();
        Console.WriteLine($"{webhookEvent["type"]} {webhookEvent["id"]}"); // deduplicate by id: a delivery may come again
${handler(event.type)}
    }
}
`;
}

export const csharp: SampleLanguage = { label: "C#", lang: "C#", file: "Sample.cs", request, webhook: verifyWebhook };
