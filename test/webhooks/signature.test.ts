import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ERROR_PREFIX, PartnerApiError } from "../../src/errors.ts";
import {
  constructWebhookEvent,
  constructWebhookEventAsync,
  signWebhookPayload,
  signWebhookPayloadAsync,
  verifyWebhookSignature,
  verifyWebhookSignatureAsync,
  WebhookError,
  WebhookPayloadError,
  WebhookRawBodyError,
  WebhookSecretError,
  WebhookSignatureError,
} from "../../src/webhooks/index.ts";
import { type HmacSha256Provider, signatureFailure, signatureFailureAsync } from "../../src/webhooks/signature.ts";

import { BODY, BODY_DIGEST, SECRET } from "./known-answers.ts";

// Digests computed independently with `printf '%s' BODY | openssl dgst -sha256 -hmac SECRET`.
const KNOWN_ANSWERS = [
  // RFC 4231 test case 2.
  {
    body: "what do ya want for nothing?",
    secret: "Jefe",
    digest: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
  },
  { body: BODY, secret: SECRET, digest: BODY_DIGEST },
  // Non-ASCII text is signed as its UTF-8 bytes.
  { body: "héllo wörld ✓", secret: SECRET, digest: "742f37b927b6e4b2a506ee49f4f02f3b714aebd6be6b44c7038591676ea60692" },
];

/** Runs a check against both implementations, so every case proves they agree. */
const variants = [
  {
    name: "node:crypto",
    sign: async (b: string | Uint8Array, s: string) => signWebhookPayload(b, s),
    verify: async (...a: Parameters<typeof verifyWebhookSignature>) => verifyWebhookSignature(...a),
  },
  { name: "Web Crypto", sign: signWebhookPayloadAsync, verify: verifyWebhookSignatureAsync },
] as const;

describe.each(variants)("signatures with $name", ({ sign, verify }) => {
  it.each(KNOWN_ANSWERS)("signs the known answer for $body", async ({ body, secret, digest }) => {
    expect(await sign(body, secret)).toBe(digest);
    expect(await sign(new TextEncoder().encode(body), secret)).toBe(digest);
    expect(await verify(body, digest, secret)).toBe(true);
    expect(await verify(Buffer.from(body, "utf8"), digest, secret)).toBe(true);
  });

  it("refuses a tampered body", async () => {
    expect(await verify(BODY.replace("approved", "rejected"), BODY_DIGEST, SECRET)).toBe(false);
    expect(await verify(`${BODY} `, BODY_DIGEST, SECRET)).toBe(false);
  });

  it("accepts the digest in either letter case (the source does not say which)", async () => {
    expect(await verify(BODY, BODY_DIGEST.toUpperCase(), SECRET)).toBe(true);
    expect(await verify(BODY, `${BODY_DIGEST.slice(0, 32)}${BODY_DIGEST.slice(32).toUpperCase()}`, SECRET)).toBe(true);
    expect(await verify(BODY.replace("approved", "rejected"), BODY_DIGEST.toUpperCase(), SECRET)).toBe(false);
  });

  it("refuses the wrong secret", async () => {
    expect(await verify(BODY, BODY_DIGEST, "whsec_other")).toBe(false);
  });

  it.each([
    ["missing", undefined],
    ["null", null],
    ["empty", ""],
    ["truncated", BODY_DIGEST.slice(0, 63)],
    ["one byte short", BODY_DIGEST.slice(0, 62)],
    ["too long", `${BODY_DIGEST}00`],
    ["non-hex", `${BODY_DIGEST.slice(0, 63)}g`],
    ["prefixed", `sha256=${BODY_DIGEST}`],
    ["padded", ` ${BODY_DIGEST}`],
  ])("answers false, without throwing, for a %s signature", async (_, signature) => {
    await expect(verify(BODY, signature as string | null | undefined, SECRET)).resolves.toBe(false);
  });

  it("accepts any secret of a rotation list, and none when no secret matches", async () => {
    expect(await verify(BODY, BODY_DIGEST, ["whsec_new", SECRET])).toBe(true);
    expect(await verify(BODY, BODY_DIGEST, [SECRET, "whsec_new"])).toBe(true);
    expect(await verify(BODY, BODY_DIGEST, ["whsec_new", "whsec_newer"])).toBe(false);
  });

  it("throws, naming the raw body, when handed a parsed object", async () => {
    const parsed = JSON.parse(BODY) as never;
    await expect(async () => verify(parsed, BODY_DIGEST, SECRET)).rejects.toThrow(WebhookRawBodyError);
    await expect(async () => verify(parsed, BODY_DIGEST, SECRET)).rejects.toThrow(/raw request body.*already-parsed/s);
    await expect(async () => verify(parsed, BODY_DIGEST, SECRET)).rejects.toThrow(/exact bytes/);
    await expect(async () => sign(parsed, SECRET)).rejects.toThrow(WebhookRawBodyError);
  });

  it("throws for a secret that cannot sign, naming it", async () => {
    await expect(async () => verify(BODY, BODY_DIGEST, "")).rejects.toThrow(WebhookSecretError);
    await expect(async () => verify(BODY, BODY_DIGEST, [])).rejects.toThrow(/secretOrSecrets is an empty list/);
    await expect(async () => verify(BODY, BODY_DIGEST, [SECRET, ""])).rejects.toThrow(/secretOrSecrets\[1\] is empty/);
    await expect(async () => sign(BODY, "")).rejects.toThrow(/secret is empty/);
  });
});

describe("node:crypto and Web Crypto agree", () => {
  it("on random bodies, secrets and candidate signatures", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string(), fc.uint8Array({ maxLength: 512 })),
        fc.string({ minLength: 1 }),
        fc.oneof(fc.constant("valid"), fc.constant("flip"), fc.string(), fc.stringMatching(/^[0-9a-f]{64}$/)),
        async (body, secret, mode) => {
          const nodeDigest = signWebhookPayload(body, secret);
          expect(await signWebhookPayloadAsync(body, secret)).toBe(nodeDigest);
          const signature =
            mode === "valid"
              ? nodeDigest
              : mode === "flip"
                ? `${nodeDigest.slice(0, -1)}${nodeDigest.endsWith("0") ? "1" : "0"}`
                : mode;
          const expected = signature === nodeDigest;
          expect(verifyWebhookSignature(body, signature, secret)).toBe(expected);
          expect(await verifyWebhookSignatureAsync(body, signature, secret)).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe.each([
  {
    name: "constructWebhookEvent",
    construct: async (...a: Parameters<typeof constructWebhookEvent>) => constructWebhookEvent(...a),
  },
  { name: "constructWebhookEventAsync", construct: constructWebhookEventAsync },
])("$name", ({ construct }) => {
  const sign = (body: string) => signWebhookPayload(body, SECRET);

  it("returns the verified, parsed event", async () => {
    const event = await construct(BODY, BODY_DIGEST, SECRET);
    expect(event).toEqual(JSON.parse(BODY));
    expect(event.type).toBe("company.kyc_status_changed");
  });

  it("accepts a rotated secret", async () => {
    expect((await construct(Buffer.from(BODY), BODY_DIGEST, ["whsec_new", SECRET])).id).toBe(
      "evt_01JD8Z2C4D6E8F0G2H4J6K8M0N",
    );
  });

  it.each([
    ["missing", undefined, "missing"],
    ["malformed", "xyz", "malformed"],
    ["mismatch", "0".repeat(64), "mismatch"],
  ] as const)("throws WebhookSignatureError for a %s signature", async (_, signature, reason) => {
    const error = await construct(BODY, signature, SECRET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookSignatureError);
    expect((error as WebhookSignatureError).reason).toBe(reason);
    expect((error as Error).message.startsWith(`${ERROR_PREFIX}webhook signature verification failed`)).toBe(true);
    expect(error).toBeInstanceOf(PartnerApiError);
    expect((error as Error).name).toBe("WebhookSignatureError");
  });

  it("checks the signature before the body, so an unsigned bad body is a signature error", async () => {
    await expect(construct("not json", "0".repeat(64), SECRET)).rejects.toThrow(WebhookSignatureError);
  });

  it.each([
    ["not JSON", "{oops", /not JSON/],
    ["a JSON array", "[]", /expected an object, got an array/],
    [
      "missing id",
      JSON.stringify({ type: "payment_route.created", payload: {}, createdAt: "2026-01-01T00:00:00Z" }),
      /"id" must be a non-empty string, got nothing/,
    ],
    [
      "a payload that is not an object",
      JSON.stringify({ id: "evt_1", type: "payment_route.created", payload: [], createdAt: "x" }),
      /"payload" must be an object/,
    ],
    [
      "an unknown type",
      JSON.stringify({ id: "evt_1", type: "card.created", payload: {}, createdAt: "x" }),
      /unknown event type "card.created"; the contract knows company\.onboarding_status_changed/,
    ],
  ])("throws WebhookPayloadError, distinct from a signature error, for %s", async (_, body, message) => {
    const error = await construct(body, sign(body), SECRET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookPayloadError);
    expect(error).not.toBeInstanceOf(WebhookSignatureError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message.startsWith(ERROR_PREFIX)).toBe(true);
    expect((error as Error).name).toBe("WebhookPayloadError");
  });

  it("says the raw body is needed, and why, when handed a parsed object", async () => {
    const parsed = JSON.parse(BODY) as never;
    const error = await construct(parsed, BODY_DIGEST, SECRET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookRawBodyError);
    expect((error as Error).message).toContain("rawBody must be the raw request body");
    expect((error as Error).message).toContain("key order, spacing");
    expect((error as Error).message).toContain("request.text()");
  });
});

describe("the one verification algorithm", () => {
  /** A backend whose digest of (body, secret) is `secret` repeated to 64 hex digits, recording every call. */
  const recorded = () => {
    const calls: string[] = [];
    const digest = (secret: string) => secret.repeat(64).slice(0, 64);
    const sync: HmacSha256Provider<string> = {
      hmacSha256Hex: (_, secret) => {
        calls.push(secret);
        return digest(secret);
      },
    };
    const async: HmacSha256Provider<Promise<string>> = {
      hmacSha256Hex: async (body, secret) => sync.hmacSha256Hex(body, secret),
    };
    return { calls, sync, async, digest };
  };

  it.each(["sync", "async"] as const)("hashes with every secret even after a match (%s backend)", async (kind) => {
    const backend = recorded();
    const run = (signature: unknown, secrets: string[]) =>
      kind === "sync"
        ? signatureFailure(backend.sync, BODY, signature, secrets)
        : signatureFailureAsync(backend.async, BODY, signature, secrets);
    expect(await run(backend.digest("a"), ["a", "b", "c"])).toBeUndefined();
    expect(backend.calls).toEqual(["a", "b", "c"]);
    expect(await run(backend.digest("d"), ["a", "b"])).toBe("mismatch");
    // A signature of the wrong form is refused before anything is hashed.
    backend.calls.length = 0;
    expect(await run("g".repeat(64), ["a"])).toBe("malformed");
    expect(await run(undefined, ["a"])).toBe("missing");
    expect(backend.calls).toEqual([]);
  });

  it("gives every error of the kit the package's base class, prefix and a name that is its class", () => {
    const errors = [
      new WebhookSignatureError("mismatch"),
      new WebhookPayloadError("p"),
      new WebhookRawBodyError("rawBody", {}),
      new WebhookSecretError("s"),
      new WebhookError("w"),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(PartnerApiError);
      expect(error).toBeInstanceOf(WebhookError);
      expect(error.message.startsWith(ERROR_PREFIX)).toBe(true);
      expect(error.name).toBe(error.constructor.name);
    }
  });
});
