/**
 * The mock's front (devkit/src/mock-front.ts) in front of a stand-in for Prism that records what reaches it: a body
 * sent as JSON that is not JSON gets the front's 400 and never reaches Prism (Prism 5.15.10 to 5.16.0 never answer
 * one); every other body reaches it byte for byte; a body over the limit gets a 413 its sender can read.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isJsonMediaType, MOCK_MAX_BODY_BYTES, type MockFront, startMockFront } from "../../devkit/src/mock-front.ts";

let front: MockFront;
let upstream: Server;
const reached: { contentType: string | undefined; body: string }[] = [];

beforeAll(async () => {
  upstream = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      reached.push({ contentType: request.headers["content-type"], body: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(201, { "content-type": "application/json" }).end('{"upstream":true}');
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  front = await startMockFront("127.0.0.1", 0);
  front.forwardTo((upstream.address() as AddressInfo).port);
});
afterAll(async () => {
  await front?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

async function post(body: string, contentType?: string) {
  reached.length = 0;
  const response = await fetch(`${front.url}/v1/companies`, {
    method: "POST",
    headers: contentType === undefined ? {} : { "content-type": contentType },
    body,
  });
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
}

describe("a body sent as JSON that is not JSON", () => {
  it.each([
    ['{"name": "unterminated', "application/json"],
    ["{'single': 'quotes'}", "application/json; charset=utf-8"],
    ["   ", "Application/JSON"],
    ["[1,]", "application/merge-patch+json"],
  ])("%j as %s gets the front's 400, naming the parse error, and never reaches Prism", async (body, type) => {
    const answer = await post(body, type);
    expect(answer.status).toBe(400);
    expect(answer.type).toBe("application/problem+json");
    const problem = JSON.parse(answer.text) as { status: number; title: string; detail: string };
    expect(problem).toMatchObject({ status: 400, title: "Malformed JSON" });
    expect(problem.detail).toMatch(/^the body is sent as JSON but is not JSON: \S/);
    expect(reached).toEqual([]);
  });
});

describe("every other body reaches Prism byte for byte", () => {
  it.each([
    ['{"name":"Acme"}', "application/json"],
    ['{"name": "unterminated', "text/plain"],
    ["not json", "application/x-www-form-urlencoded"],
    ["not json", undefined],
    ["", "application/json"],
  ])("%j as %s", async (body, type) => {
    const answer = await post(body, type);
    expect(answer).toMatchObject({ status: 201, text: '{"upstream":true}' });
    expect(reached).toEqual([{ contentType: type ?? "text/plain;charset=UTF-8", body }]);
  });
});

it("a body over the limit gets a 413 its sender reads, and the next request is answered", async () => {
  const answer = await post("x".repeat(MOCK_MAX_BODY_BYTES + 1), "application/json");
  expect(answer.status).toBe(413);
  expect(JSON.parse(answer.text)).toMatchObject({ status: 413, title: "Body too large" });
  expect(reached).toEqual([]);
  expect((await post("{}", "application/json")).status).toBe(201);
});

it("isJsonMediaType takes the types Prism parses as JSON, and only those", () => {
  for (const type of [
    "application/json",
    "application/json; charset=utf-8",
    " APPLICATION/JSON ",
    "application/problem+json",
  ])
    expect(isJsonMediaType(type), type).toBe(true);
  for (const type of [
    undefined,
    "",
    "text/json",
    "text/plain",
    "application/jsonx",
    "application/+json",
    "multipart/form-data",
  ])
    expect(isJsonMediaType(type), String(type)).toBe(false);
});
