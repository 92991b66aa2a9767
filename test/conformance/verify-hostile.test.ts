/**
 * verify's blind spots. Its first request followed a redirect to another host (a request to
 * `localhost:…/stolen/`, without the key): no request follows one now, and a 3xx is reported naming where it
 * pointed. It registered a receiver per account but fired events for the main account only, so a server that
 * signed the other account's deliveries with the main account's secret passed: the other account now gets an
 * event too, and a fixture for each side (a relay re-signing one account's deliveries with the other's secret)
 * fails webhook_signature.
 */
import { createServer, type Server } from "node:http";
import { signWebhookPayload } from "partner-api-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen } from "../../devkit/src/conformance/http.ts";
import { verify } from "../../devkit/src/conformance/verify.ts";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { type Faulty, startFaulty } from "./support/faulty.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 11 });
});
afterAll(() => sandbox.stop());

describe("verify follows no redirect", () => {
  let stolen: Server;
  let stolenRequests = 0;
  let redirecting: Server;
  let baseUrl: string;
  beforeAll(async () => {
    stolen = createServer((request, response) => {
      stolenRequests++;
      request.resume();
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    const stolenUrl = (await listen(stolen)).url.replace("127.0.0.1", "localhost");
    redirecting = createServer((request, response) => {
      request.resume();
      response.writeHead(302, { location: `${stolenUrl}/stolen${request.url}` }).end();
    });
    baseUrl = (await listen(redirecting)).url;
  });
  afterAll(() => {
    stolen.close();
    redirecting.close();
  });

  it("sends nothing where a 3xx points, and names where it pointed", async () => {
    const progress: string[] = [];
    const report = await verify({
      baseUrl,
      apiKey: "a",
      generated: 0,
      phases: new Set(["examples"]),
      onProgress: (line) => progress.push(line),
    });
    expect(stolenRequests).toBe(0);
    expect(progress.join("\n")).toMatch(/answered 302; a redirect to "http:\/\/localhost:\d+\/stolen\/", not followed/);
    const statuses = report.failures.filter((failure) => failure.check === "status_code_conformance");
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses[0]!.message).toMatch(/a redirect to "http:\/\/localhost:\d+\/stolen\/v1\//);
  }, 60_000);
});

/**
 * A server that signs `side`'s deliveries with the other account's secret: it registers each account's receiver
 * at a relay of its own, and the relay re-signs `side`'s deliveries before passing them on.
 */
async function wrongSecretFor(side: "a" | "b"): Promise<Faulty> {
  const secrets = new Map<string, string>();
  const targets = new Map<string, string>();
  let relayBase = "";
  const faulty: Faulty = await startFaulty(sandbox.url, {
    request(request) {
      if (request.method !== "POST" || request.url !== "/_sandbox/webhook-endpoints") return;
      const account = request.headers["x-api-key"]!;
      const body = JSON.parse(request.body) as { url: string; secret: string };
      secrets.set(account, body.secret);
      targets.set(account, body.url);
      request.body = JSON.stringify({ ...body, url: `${relayBase}/relay/${account}` });
    },
    async intercept(request) {
      const match = /^\/relay\/(.+)$/.exec(request.url);
      if (!match) return undefined;
      const account = match[1]!;
      const other = account === "a" ? "b" : "a";
      const secret = account === side ? secrets.get(other)! : secrets.get(account)!;
      const answer = await fetch(targets.get(account)!, {
        method: "POST",
        headers: { "content-type": "application/json", "x-signature": signWebhookPayload(request.body, secret) },
        body: request.body,
      });
      return { status: answer.status, headers: {}, body: await answer.text() };
    },
  });
  relayBase = faulty.url;
  return faulty;
}

describe("verify sends each registered account an event", () => {
  it.each(["a", "b"] as const)(
    "a server signing account %s's deliveries with the other's secret fails webhook_signature",
    async (side) => {
      const faulty = await wrongSecretFor(side);
      try {
        const report = await verify({
          baseUrl: faulty.url,
          apiKey: "a",
          otherApiKey: "b",
          allowWrites: true,
          generated: 0,
          checks: new Set(["webhook_signature", "webhook_delivered"]),
          webhookWaitMs: 5_000,
        });
        const signature = report.failures.filter((failure) => failure.check === "webhook_signature");
        expect(signature.length, JSON.stringify(report.failures.slice(0, 3))).toBeGreaterThan(0);
        const account = side === "a" ? "main" : "other";
        expect(signature.every((failure) => failure.label?.includes(`the ${account} account's receiver`))).toBe(true);
      } finally {
        await faulty.close();
      }
    },
    90_000,
  );

  it("the sandbox itself: both accounts get events, nothing fails", async () => {
    const report = await verify({
      baseUrl: sandbox.url,
      apiKey: "c",
      otherApiKey: "d",
      allowWrites: true,
      generated: 0,
      checks: new Set(["webhook_signature", "webhook_delivered"]),
      webhookWaitMs: 5_000,
    });
    expect(report.failures).toEqual([]);
  }, 90_000);
});
