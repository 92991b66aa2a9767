/**
 * Java 17: `java.net.http.HttpClient` from the standard library; the answer read with Jackson (`jackson-databind`),
 * as Java's standard library has no JSON parser. Runs as a single file: `java -cp <jackson jars> Sample.java`.
 * Webhooks: `javax.crypto.Mac` and `MessageDigest.isEqual`, no library.
 */
import type { OperationExample } from "../operation-example.ts";
import {
  API_KEY_VARIABLE,
  BASE_URL_VARIABLE,
  bodyJson,
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

/** The Maven coordinates of the JSON library the samples read answers with. */
export const JACKSON = "com.fasterxml.jackson.core:jackson-databind";

function field(name: string, path: string[]): string {
  return `${name}${path.map((key) => `.path(${quoted(key)})`).join("")}.asText()`;
}

function bodyPublisher(operation: OperationExample): string {
  const method = operation.method.toUpperCase();
  const body = operation.body ? "HttpRequest.BodyPublishers.ofString(body)" : "HttpRequest.BodyPublishers.noBody()";
  if (method === "GET" && !operation.body) return ".GET()";
  if (method === "POST") return `.POST(${body})`;
  if (method === "PUT") return `.PUT(${body})`;
  return `.method(${quoted(method)}, ${body})`;
}

function request(operation: OperationExample): string {
  const { result } = operation;
  const body = bodyJson(operation);
  const lines = [
    ...(result.fields.length > 0
      ? ["import com.fasterxml.jackson.databind.JsonNode;", "import com.fasterxml.jackson.databind.ObjectMapper;"]
      : []),
    "import java.net.URI;",
    "import java.net.http.HttpClient;",
    "import java.net.http.HttpRequest;",
    "import java.net.http.HttpResponse;",
    "",
    `public class ${pascalCase(operation.operationId)} {`,
    "    public static void main(String[] args) throws Exception {",
    `        String baseUrl = System.getenv(${quoted(BASE_URL_VARIABLE)});`,
  ];
  if (body !== undefined) {
    // A text block keeps the JSON as it is; only a backslash or three quotes in it would need escaping.
    const escaped = body.replace(/\\/g, "\\\\").replace(/"""/g, '\\"""');
    lines.push(
      '        String body = """',
      ...escaped.split("\n").map((line) => `            ${line}`),
      '            """;',
    );
  }
  lines.push(
    "        HttpRequest request = HttpRequest.newBuilder(",
    `                URI.create(baseUrl + ${quoted(requestTarget(operation))}))`,
    `            .header("X-API-Key", System.getenv(${quoted(API_KEY_VARIABLE)}))`,
    ...literalHeaders(operation).map(([name, value]) => `            .header(${quoted(name)}, ${quoted(value)})`),
    `            ${bodyPublisher(operation)}`,
    "            .build();",
    "        HttpResponse<String> response = HttpClient.newHttpClient()",
    "            .send(request, HttpResponse.BodyHandlers.ofString());",
    "        if (response.statusCode() >= 300) {",
    '            System.err.println(response.statusCode() + " " + response.body());',
    "            System.exit(1);",
    "        }",
    "",
    "        System.out.println(response.statusCode());",
  );
  if (result.fields.length > 0) {
    lines.push("        JsonNode result = new ObjectMapper().readTree(response.body());");
    const name = readName(operation);
    const values = result.fields.map((path) => field(name, path)).join(' + " " + ');
    if (result.at === undefined) lines.push(`        System.out.println(${values});`);
    else if (result.list)
      lines.push(
        `        for (JsonNode ${name} : result.path(${quoted(result.at)})) {`,
        `            System.out.println(${values});`,
        "        }",
      );
    else
      lines.push(
        `        JsonNode ${name} = result.path(${quoted(result.at)});`,
        `        System.out.println(${values});`,
      );
  }
  lines.push("    }", "}");
  return `${lines.join("\n")}\n`;
}

/** Each event's handling: what a receiver of it does with its fields (`webhookLines` in common.ts says what it prints). */
const HANDLERS: Readonly<Record<string, string>> = {
  "company.kyc_link.issued": `        System.out.printf("company %s: KYC %s; send the director to %s%n", payload.path("companyId").asText(),
                payload.path("kycStatus").asText(), payload.path("kycUrl").asText());
        if (payload.path("tosAccepted").isBoolean() && payload.path("tosAccepted").booleanValue()) {
            System.out.println("terms of service: accepted");
        } else {
            System.out.println("terms of service: to accept at " + payload.path("tosUrl").asText());
        }`,
  "company.kyc_status_changed": `        String status = payload.path("kycStatus").asText();
        System.out.printf("company %s: KYC %s%n", payload.path("companyId").asText(), status);
        System.out.println(switch (status) {
            case "approved" -> "next: the company can use Swap";
            case "rejected" -> "next: tell the company its verification was rejected";
            default -> "next: wait for the next status";
        });`,
  "payment_route.created": `        JsonNode route = payload.path("paymentRoute");
        System.out.printf("%s route %s (%s) for company %s%n", route.path("type").asText(), route.path("id").asText(),
                route.path("status").asText(), payload.path("companyId").asText());
        System.out.printf("in: %s via %s to %s%n", route.at("/source/currency").asText(),
                route.at("/source/paymentRail").asText(), route.path("depositAddress").asText());
        System.out.printf("out: %s via %s%n", route.at("/destination/currency").asText(),
                route.at("/destination/paymentRail").asText());`,
  "payment_route.transaction.created": `        JsonNode data = payload.path("data");
        String routeId = data.path("routeId").asText();
        switch (data.path("routeType").asText()) {
            case "offramp" -> System.out.printf("offramp route %s: %s %s in, %s %s out to %s, fees %s%n", routeId,
                    data.path("incomingAmount").asText(), data.at("/source/currency").asText(),
                    data.path("convertedAmount").asText(), data.at("/destination/currency").asText(),
                    data.at("/destination/bankName").asText(), data.path("totalFees").asText());
            case "onramp" -> System.out.printf("onramp route %s: %s from %s, %s out%n", routeId,
                    data.path("incomingAmount").asText(), data.path("senderName").asText(),
                    data.path("convertedAmount").asText());
            default -> {
                JsonNode transaction = payload.path("transaction");
                System.out.printf("route %s transaction %s: %s %s%n", routeId, transaction.path("id").asText(),
                        transaction.path("amount").asText(), transaction.path("currency").asText());
            }
        }`,
};

function handler(type: string): string {
  return webhookHandling(
    type,
    HANDLERS,
    (comment, line) => `        // ${comment}\n        System.out.println(${quoted(line)});`,
  );
}

function verifyWebhook(event: WebhookExample): string {
  return `import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public class VerifyWebhook {
    /** True when X-Signature is the HMAC-SHA256 of the raw body, compared in constant time. */
    static boolean validSignature(byte[] rawBody, String signature, String secret) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        byte[] expected = HexFormat.of().formatHex(mac.doFinal(rawBody)).getBytes(StandardCharsets.US_ASCII);
        byte[] given = signature.strip().toLowerCase().getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, given);
    }

    public static void main(String[] args) throws Exception {
        // The body exactly as received: verify before parsing, never a re-serialised copy.
        byte[] rawBody = System.in.readAllBytes();
        String signature = args.length > 0 ? args[0] : ""; // the X-Signature header; absent is invalid
        if (!validSignature(rawBody, signature, System.getenv(${quoted(WEBHOOK_SECRET_VARIABLE)}))) {
            System.err.println("invalid signature"); // a receiver answers 401
            System.exit(1);
        }
        JsonNode event = new ObjectMapper().readTree(rawBody);
        JsonNode payload = event.path("payload");
        // Deduplicate by id: a delivery may come again.
        System.out.println(event.path("type").asText() + " " + event.path("id").asText());
${handler(event.type)}
    }
}
`;
}

export const java: SampleLanguage = {
  label: "Java",
  lang: "Java",
  file: "Sample.java",
  request,
  webhook: verifyWebhook,
};
