/**
 * Where the sandbox sends webhooks (receivers.ts). A receiver at the sandbox itself
 * (`http://127.0.0.1:4020/_sandbox/reset`) made the next event wipe every account; link-local and metadata
 * addresses were accepted; credentials in a receiver URL were shown in its list and the request log. Each
 * spelling of the sandbox's own address is refused at registration (422 naming `url`), a name that resolves
 * there at delivery (DNS rebinding) is refused on the delivery's own lookup, and credentials are refused and,
 * in a state file of before, redacted everywhere the URL is shown.
 */
import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redactUrlCredentials } from "../../devkit/src/redact.ts";
import { CONTROL_HANDLERS } from "../../devkit/src/sandbox/flows/index.ts";
import { addEndpoint } from "../../devkit/src/sandbox/flows/webhooks.ts";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { addressKind, type ReceiverPolicy, receiverUrlRefusal } from "../../devkit/src/sandbox/receivers.ts";
import { type Receiver, startReceiver } from "../../scripts/lib/receiver.ts";
import { clientFor, memoryEngine, ONBOARD_BODY } from "./support.ts";

const OWN: ReceiverPolicy = { ownPort: () => 4020, allowPrivate: false };

describe("receiverUrlRefusal", () => {
  it.each([
    "http://127.0.0.1:4020/_sandbox/reset",
    "http://localhost:4020/",
    "http://LOCALHOST.:4020/",
    "http://app.localhost:4020/",
    "http://127.1:4020/",
    "http://127.0.0.2:4020/",
    "http://2130706433:4020/",
    "http://0x7f000001:4020/",
    "http://0x7f.0.0.1:4020/",
    "http://0177.0.0.1:4020/",
    "http://[::1]:4020/",
    "http://[::ffff:127.0.0.1]:4020/",
    "http://[0:0:0:0:0:ffff:7f00:1]:4020/",
  ])("%s: the sandbox's own address", (url) => {
    expect(receiverUrlRefusal(url, OWN)).toMatch(/the sandbox's own address/);
  });

  it.each([
    ["http://169.254.169.254/latest/meta-data/", /metadata/],
    ["http://[::ffff:169.254.169.254]/", /metadata/],
    ["http://metadata.google.internal/computeMetadata/v1/", /metadata/],
    ["http://[fd00:ec2::254]/", /metadata/],
    ["http://169.254.10.1/", /link-local/],
    ["http://[fe80::1]/", /link-local/],
    ["http://0.0.0.0:8080/", /unspecified/],
    ["http://0:8080/", /unspecified/],
    ["http://[::]:8080/", /unspecified/],
    ["http://224.0.0.1/", /multicast/],
    ["http://10.1.2.3/", /private.*--allow-private-receivers/],
    ["http://192.168.0.10/", /private/],
    ["http://172.20.0.1/", /private/],
    ["http://[fd12::1]/", /private/],
    ["http://[64:ff9b::a9fe:a9fe]/", /metadata/],
    ["http://user:secret@example.com/hooks", /user name or password/],
    ["http://user@example.com/hooks", /user name or password/],
    ["ftp://example.com/", /http: or https:/],
  ])("%s is refused", (url, why) => {
    expect(receiverUrlRefusal(url, OWN)).toMatch(why);
  });

  it.each([
    "http://127.0.0.1:4242/webhooks",
    "http://localhost:4242/",
    "http://[::1]:4021/",
    "https://hooks.example.com/",
    "http://93.184.215.14/",
  ])("%s is allowed", (url) => {
    expect(receiverUrlRefusal(url, OWN)).toBeUndefined();
  });

  it("private ranges only with the option", () => {
    expect(receiverUrlRefusal("http://10.1.2.3/", { ...OWN, allowPrivate: true })).toBeUndefined();
    expect(receiverUrlRefusal("http://169.254.169.254/", { ...OWN, allowPrivate: true })).toMatch(/metadata/);
  });

  it("reads embedded IPv4 addresses", () => {
    expect(addressKind("::ffff:7f00:1")).toBe("loopback");
    expect(addressKind("::127.0.0.1")).toBe("loopback");
    expect(addressKind("2001:db8::1")).toBeUndefined();
  });

  it("redacts credentials wherever a URL is in a text", () => {
    expect(redactUrlCredentials("see http://user:secret@host/x and https://a@b.example")).toBe(
      "see http://[REDACTED]@host/x and https://[REDACTED]@b.example",
    );
    expect(redactUrlCredentials("mail me@example.com")).toBe("mail me@example.com");
  });
});

describe("in the sandbox", () => {
  let sandbox: Sandbox;
  let receiver: Receiver;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, seed: 3 });
    receiver = await startReceiver([200]);
  });
  afterAll(async () => {
    await receiver.close();
    await sandbox.stop();
  });

  it("refuses a receiver at its own address in any spelling, 422 naming url", async () => {
    const client = clientFor(sandbox.url, "self-a");
    for (const host of ["127.0.0.1", "localhost", "[::ffff:127.0.0.1]", "2130706433", "0x7f.1"]) {
      const url = `http://${host}:${sandbox.port}/_sandbox/reset`;
      const answer = await client.post("/_sandbox/webhook-endpoints", { url, secret: "s" });
      expect(answer.status, url).toBe(422);
      expect(answer.body.detail).toMatch(/^url must not point at .*the sandbox's own address/);
    }
    const created = await client.post("/_sandbox/webhook-endpoints", { url: receiver.url, secret: "s" });
    expect(created.status).toBe(201);
    const moved = await client.patch(`/_sandbox/webhook-endpoints/${created.body.id}`, {
      url: `http://[::1]:${sandbox.port}/_sandbox/reset`,
    });
    expect(moved.status).toBe(422);
  });

  it("a name that resolves to its own address at delivery is refused there: the sandbox does not call itself", async () => {
    const name = hostname();
    const client = clientFor(sandbox.url, "self-rebind");
    const created = await client.post("/_sandbox/webhook-endpoints", {
      url: `http://${name}:${sandbox.port}/_sandbox/reset`,
      secret: "s",
    });
    expect(created.status).toBe(201);
    await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
    await sandbox.control.POST("/_sandbox/clock/advance", { body: { seconds: 0 } });
    await expect
      .poll(async () => (await client.get("/_sandbox/events")).body.events[0]?.deliveries[0]?.error, { timeout: 5_000 })
      .toMatch(/resolves to .*the sandbox's own address/);
    // Still there: no reset happened.
    expect((await client.get("/_sandbox/webhook-endpoints")).body.webhookEndpoints).toHaveLength(1);
  });

  it("refuses credentials in the URL, and shows none in the request log", async () => {
    const client = clientFor(sandbox.url, "creds");
    const answer = await client.post("/_sandbox/webhook-endpoints", {
      url: "http://user:hunter2@hooks.example.com/",
      secret: "s",
    });
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toContain("user name or password");
    expect(JSON.stringify(answer.body)).not.toContain("hunter2");
    const log = await client.get("/_sandbox/requests");
    expect(JSON.stringify(log.body)).toContain("webhook-endpoints");
    expect(JSON.stringify(log.body)).not.toContain("hunter2");
  });
});

describe("a receiver URL with credentials from a state file of before", () => {
  it("is shown redacted by listWebhookEndpoints", async () => {
    const engine = memoryEngine();
    engine.account("old-state");
    addEndpoint(engine, "old-state", "http://user:hunter2@hooks.example.com/in", "whsec_old");
    const call = { env: engine, testMode: undefined, params: {}, body: undefined, apiKey: "old-state" } as never;
    const reply = (await CONTROL_HANDLERS.listWebhookEndpoints!(call)) as {
      body: { webhookEndpoints: { url: string }[] };
    };
    expect(reply.body.webhookEndpoints.map((endpoint) => endpoint.url)).toEqual([
      "http://[REDACTED]@hooks.example.com/in",
    ]);
  });
});
