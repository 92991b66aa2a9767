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
  WEBHOOK_SECRET_VARIABLE,
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

function verifyWebhook(): string {
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

func main() {
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
		log.Fatal("invalid signature")
	}
	var event struct {
		ID   string \`json:"id"\`
		Type string \`json:"type"\`
	}
	if err := json.Unmarshal(rawBody, &event); err != nil {
		log.Fatal(err)
	}
	fmt.Println(event.Type, event.ID)
}
`;
}

export const go: SampleLanguage = { label: "Go", lang: "Go", file: "sample.go", request, webhook: verifyWebhook };
