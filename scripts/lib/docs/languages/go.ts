/**
 * Go: `net/http` and `encoding/json` from the standard library, the answer decoded into a struct of the fields it
 * reads; `crypto/hmac` for webhooks. The output is gofmt's (the samples test runs gofmt on it).
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
  UNSHOWN_COMMENT,
  UNSHOWN_PAYLOAD_LINES,
  WEBHOOK_SECRET_VARIABLE,
  type WebhookExample,
} from "./common.ts";

/** Go's exported field name for a JSON property, with Go's initialisms: `id` → `ID`, `url` → `URL`. */
export function goFieldName(property: string): string {
  const name = pascalCase(property);
  return name.replace(/Id$|^Id(?=[A-Z]|$)/, "ID").replace(/Url$|^Url(?=[A-Z]|$)/, "URL");
}

/** A struct's fields, aligned as gofmt aligns a block of one-line fields. */
function structFields(fields: Array<[name: string, type: string, tag: string]>, indent: string): string[] {
  const lines: string[] = [];
  let block: Array<[string, string, string]> = [];
  const flush = () => {
    const nameWidth = Math.max(...block.map(([name]) => name.length));
    const typeWidth = Math.max(...block.map(([, type]) => type.length));
    for (const [name, type, tag] of block)
      lines.push(`${indent}${name.padEnd(nameWidth)} ${type.padEnd(typeWidth)} ${tag}`);
    block = [];
  };
  for (const field of fields) {
    if (field[1].includes("\n")) {
      if (block.length > 0) flush();
      lines.push(`${indent}${field[0]} ${field[1]} ${field[2]}`);
    } else block.push(field);
  }
  if (block.length > 0) flush();
  return lines;
}

/** The struct type holding `paths` (each a string at the end), nested by their first keys, indented at `depth` tabs. */
function structOf(paths: string[][], depth: number): string {
  const groups = new Map<string, string[][]>();
  for (const path of paths) {
    const [first, ...rest] = path as [string, ...string[]];
    groups.set(first, [...(groups.get(first) ?? []), rest]);
  }
  const indent = "\t".repeat(depth + 1);
  const fields: Array<[string, string, string]> = [...groups].map(([key, rests]) => [
    goFieldName(key),
    rests.some((rest) => rest.length > 0)
      ? structOf(
          rests.filter((rest) => rest.length > 0),
          depth + 1,
        )
      : "string",
    `\`json:${quoted(key)}\``,
  ]);
  return `struct {\n${structFields(fields, indent).join("\n")}\n${"\t".repeat(depth)}}`;
}

function request(operation: OperationExample): string {
  const { result } = operation;
  const body = bodyJson(operation);
  const usesBody = body !== undefined;
  const imports = ["encoding/json", "fmt", "io", "log", "net/http", "os"];
  if (usesBody) imports.push("strings");
  if (result.fields.length === 0) imports.splice(imports.indexOf("encoding/json"), 1);
  const lines = ["package main", "", "import (", ...imports.sort().map((name) => `\t${quoted(name)}`), ")", ""];
  lines.push("func main() {");
  if (usesBody) {
    const raw = body.includes("`") ? quoted(body) : `\`${body}\``;
    lines.push(`\tbody := strings.NewReader(${raw.split("\n").join("\n")})`);
  }
  lines.push(
    `\turl := os.Getenv(${quoted(BASE_URL_VARIABLE)}) + ${quoted(requestTarget(operation))}`,
    `\treq, err := http.NewRequest(${quoted(operation.method.toUpperCase())}, url, ${usesBody ? "body" : "nil"})`,
    "\tif err != nil {",
    "\t\tlog.Fatal(err)",
    "\t}",
    `\treq.Header.Set("X-API-Key", os.Getenv(${quoted(API_KEY_VARIABLE)}))`,
    ...literalHeaders(operation).map(([name, value]) => `\treq.Header.Set(${quoted(name)}, ${quoted(value)})`),
    "\tresp, err := http.DefaultClient.Do(req)",
    "\tif err != nil {",
    "\t\tlog.Fatal(err)",
    "\t}",
    "\tdefer resp.Body.Close()",
    "\tif resp.StatusCode >= 300 {",
    "\t\tmessage, _ := io.ReadAll(resp.Body)",
    '\t\tlog.Fatalf("%d %s", resp.StatusCode, message)',
    "\t}",
    "",
    "\tfmt.Println(resp.StatusCode)",
  );
  if (result.fields.length > 0) {
    const paths = result.at === undefined ? result.fields : result.fields.map((path) => [result.at!, ...path]);
    let type = structOf(paths, 1);
    if (result.list) {
      // The list property holds a slice of the item struct.
      const itemType = structOf(result.fields, 2);
      type = `struct {\n${structFields([[goFieldName(result.at!), `[]${itemType}`, `\`json:${quoted(result.at!)}\``]], "\t\t").join("\n")}\n\t}`;
    }
    lines.push(
      `\tvar result ${type}`,
      "\tif err := json.NewDecoder(resp.Body).Decode(&result); err != nil {",
      "\t\tlog.Fatal(err)",
      "\t}",
    );
    const name = readName(operation);
    const read = (prefix: string) =>
      result.fields.map((path) => `${prefix}.${path.map(goFieldName).join(".")}`).join(", ");
    if (result.at === undefined) lines.push(`\tfmt.Println(${read("result")})`);
    else if (result.list)
      lines.push(
        `\tfor _, ${name} := range result.${goFieldName(result.at)} {`,
        `\t\tfmt.Println(${read(name)})`,
        "\t}",
      );
    else lines.push(`\t${name} := result.${goFieldName(result.at)}`, `\tfmt.Println(${read(name)})`);
  }
  lines.push("}");
  return `${lines.join("\n")}\n`;
}

/** Each event's payload as a Go type (the fields its handling reads) and its handling, gofmt's layout. */
const HANDLERS: Readonly<Record<string, { types: string; handle: string }>> = {
  "company.kyc_link.issued": {
    types: `// kycLinkIssued is the payload of company.kyc_link.issued.
type kycLinkIssued struct {
	CompanyID   string \`json:"companyId"\`
	KycURL      string \`json:"kycUrl"\`
	KycStatus   string \`json:"kycStatus"\`
	TosURL      string \`json:"tosUrl"\`
	TosAccepted bool   \`json:"tosAccepted"\`
}`,
    handle: `	payload := event.Payload
	fmt.Printf("company %s: KYC %s; send the director to %s\\n", payload.CompanyID, payload.KycStatus, payload.KycURL)
	if payload.TosAccepted {
		fmt.Println("terms of service: accepted")
	} else {
		fmt.Println("terms of service: to accept at " + payload.TosURL)
	}`,
  },
  "company.kyc_status_changed": {
    types: `// kycStatusChanged is the payload of company.kyc_status_changed.
type kycStatusChanged struct {
	CompanyID string \`json:"companyId"\`
	KycStatus string \`json:"kycStatus"\`
}`,
    handle: `	fmt.Printf("company %s: KYC %s\\n", event.Payload.CompanyID, event.Payload.KycStatus)
	switch event.Payload.KycStatus {
	case "approved":
		fmt.Println("next: the company can use Swap")
	case "rejected":
		fmt.Println("next: tell the company its verification was rejected")
	default:
		fmt.Println("next: wait for the next status")
	}`,
  },
  "payment_route.created": {
    types: `// routeEnd is one side of a payment route.
type routeEnd struct {
	Currency    string \`json:"currency"\`
	PaymentRail string \`json:"paymentRail"\`
}

// paymentRouteCreated is the payload of payment_route.created.
type paymentRouteCreated struct {
	CompanyID    string \`json:"companyId"\`
	PaymentRoute struct {
		ID             string   \`json:"id"\`
		Type           string   \`json:"type"\`
		Status         string   \`json:"status"\`
		DepositAddress string   \`json:"depositAddress"\`
		Source         routeEnd \`json:"source"\`
		Destination    routeEnd \`json:"destination"\`
	} \`json:"paymentRoute"\`
}`,
    handle: `	route := event.Payload.PaymentRoute
	fmt.Printf("%s route %s (%s) for company %s\\n", route.Type, route.ID, route.Status, event.Payload.CompanyID)
	fmt.Printf("in: %s via %s to %s\\n", route.Source.Currency, route.Source.PaymentRail, route.DepositAddress)
	fmt.Printf("out: %s via %s\\n", route.Destination.Currency, route.Destination.PaymentRail)`,
  },
  "payment_route.transaction.created": {
    types: `// routeTransactionCreated is the payload of payment_route.transaction.created; Data holds the fields of both
// route kinds, told apart by RouteType (empty when absent).
type routeTransactionCreated struct {
	Transaction struct {
		ID       string \`json:"id"\`
		Amount   string \`json:"amount"\`
		Currency string \`json:"currency"\`
	} \`json:"transaction"\`
	Data struct {
		RouteID         string \`json:"routeId"\`
		RouteType       string \`json:"routeType"\`
		IncomingAmount  string \`json:"incomingAmount"\`
		ConvertedAmount string \`json:"convertedAmount"\`
		TotalFees       string \`json:"totalFees"\`
		SenderName      string \`json:"senderName"\`
		Source          struct {
			Currency string \`json:"currency"\`
		} \`json:"source"\`
		Destination struct {
			Currency string \`json:"currency"\`
			BankName string \`json:"bankName"\`
		} \`json:"destination"\`
	} \`json:"data"\`
}`,
    handle: `	data := event.Payload.Data
	switch data.RouteType {
	case "offramp":
		fmt.Printf("offramp route %s: %s %s in, %s %s out to %s, fees %s\\n", data.RouteID, data.IncomingAmount,
			data.Source.Currency, data.ConvertedAmount, data.Destination.Currency, data.Destination.BankName, data.TotalFees)
	case "onramp":
		fmt.Printf("onramp route %s: %s from %s, %s out\\n", data.RouteID, data.IncomingAmount, data.SenderName,
			data.ConvertedAmount)
	default:
		transaction := event.Payload.Transaction
		fmt.Printf("route %s transaction %s: %s %s\\n", data.RouteID, transaction.ID, transaction.Amount,
			transaction.Currency)
	}`,
  },
};

/** The event's payload types (if its handling reads a payload), the envelope's fields, and the handling. */
function eventParts(type: string): { types: string; fields: string; handle: string } {
  const known = HANDLERS[type];
  if (known) {
    const name = /^type (\w+) struct/m.exec(known.types.split("\n\n").at(-1)!)![1]!;
    // gofmt aligns the tags: the type column is as wide as the payload's type name.
    const column = "string".padEnd(name.length);
    return {
      types: `${known.types}\n\n`,
      fields: `\t\tID      ${column} \`json:"id"\`\n\t\tType    ${column} \`json:"type"\`\n\t\tPayload ${name} \`json:"payload"\``,
      handle: known.handle,
    };
  }
  const line = UNSHOWN_PAYLOAD_LINES[type];
  return {
    types: "",
    fields: `\t\tID   string \`json:"id"\`\n\t\tType string \`json:"type"\``,
    handle: line ? `\t// ${UNSHOWN_COMMENT}\n\tfmt.Println(${quoted(line)})` : "",
  };
}

function verifyWebhook(event: WebhookExample): string {
  const { types, fields, handle } = eventParts(event.type);
  return `package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
)

// validSignature reports whether X-Signature is the HMAC-SHA256 of the raw body, compared in constant time.
func validSignature(rawBody []byte, signature, secret string) bool {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(rawBody)
	expected := hex.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(expected), []byte(strings.ToLower(strings.TrimSpace(signature))))
}

${types}func main() {
	// The body exactly as received: verify before parsing, never a re-serialised copy.
	rawBody, err := io.ReadAll(os.Stdin)
	if err != nil {
		log.Fatal(err)
	}
	signature := "" // the X-Signature header; absent is invalid
	if len(os.Args) > 1 {
		signature = os.Args[1]
	}
	if !validSignature(rawBody, signature, os.Getenv(${quoted(WEBHOOK_SECRET_VARIABLE)})) {
		log.Fatal("invalid signature") // a receiver answers 401
	}
	var event struct {
${fields}
	}
	if err := json.Unmarshal(rawBody, &event); err != nil {
		log.Fatal(err)
	}
	fmt.Println(event.Type, event.ID) // deduplicate by ID: a delivery may come again
${handle}
}
`;
}

export const go: SampleLanguage = { label: "Go", lang: "Go", file: "sample.go", request, webhook: verifyWebhook };
