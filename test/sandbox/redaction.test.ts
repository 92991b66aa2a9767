/**
 * No secret reaches the request log, its stream or the dashboard (which reads the log), however the request
 * that carried it was written: every way around the first redaction the issue found (a media type in capitals,
 * a body over 64 KiB, text/plain, malformed JSON, a field named api_key), and the others of the list (headers,
 * query parameters, forms, nested and array fields, answers). And redact.ts itself, on the names and bodies.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  isSecretName,
  mediaTypeOf,
  REDACTED,
  readRedacted,
  redactedBodyText,
  redactHeaders,
  redactQuery,
  redactValue,
} from "../../devkit/src/redact.ts";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 33 });
});
afterAll(() => sandbox.stop());

/** Every secret sent below: none may appear in what the sandbox shows. */
const SECRETS: string[] = [];
const secret = (name: string) => {
  const value = `s3cr3t-${name}-${SECRETS.length}`;
  SECRETS.push(value);
  return value;
};

function send(path: string, contentType: string | undefined, body: string, headers: Record<string, string> = {}) {
  return fetch(`${sandbox.url}${path}`, {
    method: "POST",
    headers: { "x-api-key": "redact", ...(contentType ? { "content-type": contentType } : {}), ...headers },
    // Bytes: a string would be sent as text/plain.
    body: new TextEncoder().encode(body),
  }).then((response) => response.text());
}

/** Reads the stream until `count` request events came. */
async function streamed(response: Response, count: number): Promise<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while ((text.match(/^event: request$/gm) ?? []).length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  await reader.cancel();
  return text;
}

describe("the log, its stream and the dashboard show no secret", () => {
  it("however the request carried it", async () => {
    const stream = await fetch(`${sandbox.url}/_sandbox/requests/stream`);
    const endpoint = "/_sandbox/webhook-endpoints";
    const url = "http://127.0.0.1:9/hooks";
    const sends = [
      // The media type in capitals, with parameters.
      () => send(endpoint, "Application/JSON; Charset=UTF-8", JSON.stringify({ url, secret: secret("case") })),
      // Over 64 KiB: redacted before it is cut.
      () =>
        send(
          endpoint,
          "application/json",
          JSON.stringify({ secret: secret("long"), url, note: Array.from({ length: 20 }, () => "x".repeat(4000)) }),
        ),
      // Text, and malformed JSON: shown as their size and type only.
      () => send(endpoint, "text/plain", `secret=${secret("text")}`),
      () => send(endpoint, "application/json", `{"url":"${url}","secret":"${secret("malformed")}"`),
      () => send(endpoint, undefined, `{"secret":"${secret("untyped")}"}`),
      // Names of the list, nested and in arrays.
      () =>
        send(
          "/v1/companies",
          "application/json",
          JSON.stringify({
            name: "N",
            countryCode: "US",
            api_key: secret("api_key"),
            nested: { apiKey: secret("apiKey"), list: [{ client_secret: secret("client_secret") }] },
            password: { value: secret("password-object") },
            webhookSecret: secret("webhookSecret"),
            Authorization: secret("body-authorization"),
          }),
        ),
      // A form.
      () =>
        send(
          endpoint,
          "application/x-www-form-urlencoded",
          `url=${encodeURIComponent(url)}&secret=${secret("form")}&access_token=${secret("form-token")}`,
        ),
      // Headers and the query.
      () =>
        send(`/v1/companies?api_key=${secret("query")}&page=1`, "application/json", "{}", {
          authorization: `Bearer ${secret("authorization")}`,
          cookie: `session=${secret("cookie")}`,
          "x-webhook-secret": secret("header"),
        }),
    ];
    for (const one of sends) await one();
    const events = await streamed(stream, sends.length);
    const listed = await (await fetch(`${sandbox.url}/_sandbox/requests?limit=1000`)).text();
    const mine = await (await fetch(`${sandbox.url}/_sandbox/requests`, { headers: { "x-api-key": "redact" } })).text();
    for (const value of SECRETS) {
      expect(listed, value).not.toContain(value);
      expect(mine, value).not.toContain(value);
      expect(events, value).not.toContain(value);
    }
    const entries = (
      JSON.parse(mine) as { requests: { request: Record<string, unknown>; query?: string }[] }
    ).requests.reverse();
    expect(entries[0]!.request.body).toEqual({ url, secret: REDACTED });
    expect(entries[1]!.request).toMatchObject({ truncated: true });
    expect(entries[2]!.request.omitted).toEqual({
      bytes: `secret=${SECRETS[2]}`.length,
      mediaType: "text/plain",
      reason: "text/plain is neither JSON nor a form",
    });
    expect(entries[3]!.request.omitted).toMatchObject({ mediaType: "application/json", reason: "not valid JSON" });
    expect(entries[4]!.request.omitted).toMatchObject({ mediaType: "(none)", reason: "no Content-Type" });
    expect(entries[6]!.request.body).toEqual({ url, secret: REDACTED, access_token: REDACTED });
    expect(entries[7]!.query).toBe(`api_key=${encodeURIComponent(REDACTED)}&page=1`);
    expect(entries[7]!.request.headers).toMatchObject({
      authorization: REDACTED,
      cookie: REDACTED,
      "x-webhook-secret": REDACTED,
      "x-api-key": REDACTED,
    });
  });
});

describe("files that hold secrets", () => {
  it("the state (the database and its log files) is created readable by its owner only, whatever the umask lets others read", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), "partner-state-mode-"));
    const previous = process.umask(0o022);
    try {
      const file = path.join(folder, "state.db");
      const withState = await startSandbox({ port: 0, state: file });
      await fetch(`${withState.url}/_sandbox/webhook-endpoints`, {
        method: "POST",
        headers: { "x-api-key": "files", "content-type": "application/json" },
        body: JSON.stringify({ url: "http://127.0.0.1:9/", secret: "whsec_on_disk" }),
      });
      const during = readdirSync(folder);
      expect(during.sort()).toEqual(["state.db", "state.db-shm", "state.db-wal"]);
      for (const name of during) expect(statSync(path.join(folder, name)).mode & 0o777, name).toBe(0o600);
      await withState.stop();
      for (const name of readdirSync(folder)) expect(statSync(path.join(folder, name)).mode & 0o777, name).toBe(0o600);
    } finally {
      process.umask(previous);
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe("redact.ts", () => {
  it("knows secret-shaped names in any case and spelling, and leaves others", () => {
    for (const name of [
      "secret",
      "webhook_secret",
      "clientSecret",
      "api_key",
      "apiKey",
      "X-API-Key",
      "password",
      "PASSWORD",
      "accessToken",
      "refresh-token",
      "Authorization",
      "Proxy-Authorization",
      "cookie",
      "Set-Cookie",
      "credentials",
      "private_key",
    ])
      expect(isSecretName(name), name).toBe(true);
    for (const name of ["id", "name", "url", "kycUrl", "status", "keyword", "x-company-id", "cardHolderId"])
      expect(isSecretName(name), name).toBe(false);
  });

  it("redacts a value at any depth and in any array, without recursion, keys as data", () => {
    let deep: Record<string, unknown> = { password: "p" };
    for (let i = 0; i < 20_000; i++) deep = { next: deep };
    let copy = redactValue(deep) as Record<string, unknown>;
    for (let i = 0; i < 20_000; i++) copy = copy.next as Record<string, unknown>;
    expect(copy).toEqual({ password: REDACTED });
    const wide = redactValue({ list: Array.from({ length: 50_000 }, (_, i) => ({ i, token: "t" })) }) as {
      list: { token: string }[];
    };
    expect(wide.list[49_999]!.token).toBe(REDACTED);
    const proto = redactValue(JSON.parse('{"__proto__":{"secret":"x"},"ok":null,"secret":null}')) as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(proto)).toBeNull();
    expect(Object.keys(proto)).toEqual(["__proto__", "ok", "secret"]);
    expect(Object.getOwnPropertyDescriptor(proto, "__proto__")?.value).toEqual({ secret: REDACTED });
  });

  it("reads a body by its parsed media type; what it cannot parse is its size and type", () => {
    expect(mediaTypeOf("Application/Problem+JSON ; charset=utf-8")).toBe("application/problem+json");
    expect(readRedacted('{"secret":"x"}', "application/merge-patch+json")).toEqual({ parsed: { secret: REDACTED } });
    expect(readRedacted("secret=x&a=b", "Application/X-WWW-Form-URLencoded")).toEqual({
      parsed: { secret: REDACTED, a: "b" },
    });
    expect(readRedacted("<p>secret</p>", "text/html")).toEqual({
      omitted: { bytes: 13, mediaType: "text/html", reason: "text/html is neither JSON nor a form" },
    });
    expect(readRedacted(`${"[".repeat(70)}${"]".repeat(70)}`, "application/json")).toMatchObject({
      omitted: { reason: "nested deeper than 64 levels" },
    });
    expect(redactedBodyText('{"a":1,"password":"x"}', "application/json")).toBe(`{"a":1,"password":"${REDACTED}"}`);
    expect(redactedBodyText("password x", "text/plain")).toBe(
      "[10 bytes of text/plain, not shown: text/plain is neither JSON nor a form]",
    );
    expect(redactHeaders({ Authorization: "Bearer x", "X-Trace": ["a", "b"], Cookie: undefined })).toEqual({
      authorization: REDACTED,
      "x-trace": "a, b",
    });
    expect(redactQuery("page=1&token=abc&token=def")).toBe(`page=1&token=${encodeURIComponent(REDACTED)}`);
    expect(redactQuery("page=1")).toBe("page=1");
  });
});
