/**
 * The package's public types as a partner's compiler meets them: the client built as `npm pack` ships it, installed
 * in a fresh project, type-checked with TypeScript 5.9 (the repository's) and TypeScript 7 (the runtime matrix's,
 * runtimes/package.json) under `strict`, `exactOptionalPropertyTypes`, `noUncheckedIndexedAccess` and no
 * `skipLibCheck`, with `NodeNext` and with `Bundler` resolution. right.ts must compile clean; wrong.ts holds the calls
 * a partner gets wrong, each under `@ts-expect-error`, so one that compiles fails the check (the directive is then
 * unused), and without the directives every one of them is an error at its line.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INSTALL_HINT, type Matrix, matrixForTests } from "../../scripts/lib/runtimes.ts";
import { TSC } from "../helpers/strict-tsconfig.ts";
import { makeApp } from "../runtimes/workspace.ts";

const run = promisify(execFile);

const RIGHT = `import {
  type ApiErrorOf,
  type CompanyClient,
  constructWebhookEventAsync,
  createPartnerClient,
  createWebhookHandler,
  isApiError,
  paginate,
  type PartnerClient,
  unwrap,
  type WebhookEventOf,
} from "partner-api-client";
import type { components, paths } from "partner-api-client/types";

declare const apiKey: string;
const client: PartnerClient = createPartnerClient({ apiKey, baseUrl: "https://api.example.com", timeoutMs: 10_000 });
const company: CompanyClient = client.forCompany("01JD8X2K7P3M9Q4R6S8T0V2W4X");

export async function calls(): Promise<number> {
  const listed = unwrap(await company.GET("/v1/cards", { params: { query: { page: 1, limit: 20 } } }));
  const first: components["schemas"]["Card"] | undefined = listed.cards?.[0];
  const created = unwrap(
    await company.POST("/v1/cards", {
      body: { cardHolderId: "01JD8X5H3J7K9M1N3P5Q7R9S1T", name: "Travel", category: "TravelExpenses", bin: "489514" },
    }),
  );
  const header = await client.GET("/v1/card-bins", { params: { header: { "X-Company-Id": company.companyId } } });
  const strict = createPartnerClient({ apiKey, baseUrl: "https://api.example.com", throwOnError: true });
  const { data } = await strict.GET("/v1/companies");
  const companies: number = data.companies?.length ?? 0;
  let status = 0;
  try {
    await strict.GET("/transactions/{transactionId}", { params: { path: { transactionId: "01JD8Y0A1B2C3D4E5F6G7H8J9K" } } });
  } catch (error) {
    if (isApiError(error, "getTransaction")) {
      const declared: ApiErrorOf<"getTransaction"> = error;
      status = declared.status;
    }
  }
  let ids = 0;
  for await (const card of paginate(company, "/v1/cards", { maxItems: 50 })) ids += card.id ? 1 : 0;
  const event = await constructWebhookEventAsync("{}", "signature", "secret");
  if (event.type === "company.kyc_status_changed") {
    const payload: WebhookEventOf<"company.kyc_status_changed">["payload"] = event.payload;
    ids += payload.kycStatus ? 1 : 0;
  }
  const handler = createWebhookHandler({ secrets: ["old", "new"], on: { "payment_route.created": (e) => e.payload } });
  const answered: Response = await handler(new Request("https://example.com", { method: "POST", body: "{}" }));
  const path: keyof paths = "/v1/cards";
  return (first ? 1 : 0) + (created.card ? 1 : 0) + (header.data ? 1 : 0) + companies + status + ids + answered.status + path.length;
}
`;

/** Each wrong call: under `@ts-expect-error`, so one that compiles fails the check. */
const WRONG_CASES = [
  ["a path the contract does not have", `await company.GET("/v1/cards/all");`],
  ["a company-scope call on a client acting for no company", `await client.GET("/v1/cards");`],
  ["a body without its required fields", `await company.POST("/v1/cards", { body: { name: "Travel" } });`],
  ["a missing path parameter", `await company.GET("/v1/card-holders/{cardHolderId}", { params: { path: {} } });`],
  [
    "an option of the wrong type",
    `createPartnerClient({ apiKey: "k", baseUrl: "https://x.example", timeoutMs: "30" });`,
  ],
  [
    "undefined for an optional option (exactOptionalPropertyTypes)",
    `createPartnerClient({ apiKey: "k", baseUrl: undefined });`,
  ],
  ["a property the response does not have", `unwrap(await company.GET("/v1/card-bins")).cardBins?.[0]?.nope;`],
  [
    "data that may be undefined without throwOnError",
    `const n: number = (await client.GET("/v1/companies")).data.companies?.length ?? 0;`,
  ],
  ["a list paginate() does not page", `paginate(company, "/v1/card-bins");`],
  [
    "a webhook event type that does not exist",
    `createWebhookHandler({ secrets: "s", on: { "card.created": () => {} } });`,
  ],
  [
    "a status getTransaction does not declare",
    `if (isApiError(error, "getTransaction")) { const s: 500 = error.status; }`,
  ],
] as const;

const WRONG = `import { createPartnerClient, createWebhookHandler, isApiError, paginate, unwrap } from "partner-api-client";

const client = createPartnerClient({ apiKey: "k", baseUrl: "https://api.example.com" });
const company = client.forCompany("01JD8X2K7P3M9Q4R6S8T0V2W4X");
declare const error: unknown;

export async function wrong(): Promise<void> {
${WRONG_CASES.map(([why, line]) => `  // ${why}\n  // @ts-expect-error\n  ${line}`).join("\n")}
}
`;

const RESOLUTIONS = {
  NodeNext: { module: "NodeNext", moduleResolution: "NodeNext" },
  Bundler: { module: "Preserve", moduleResolution: "Bundler" },
} as const;

interface Compiler {
  name: string;
  /** The tsc script, run with the Node running the tests. */
  tsc: string;
}

let work: string;
let app: string;
let matrix: Matrix | undefined;
const compilers: Compiler[] = [];

async function tsc(compiler: Compiler, project: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [compiler.tsc, "-p", project, "--pretty", "false"], {
      cwd: app,
      encoding: "utf8",
      timeout: 120_000,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof code === "number" ? code : -1, output: `${stdout ?? ""}${stderr ?? ""}` };
  }
}

async function writeProject(name: string, resolution: keyof typeof RESOLUTIONS, files: string[]): Promise<string> {
  const project = path.join(app, `tsconfig.${name}.json`);
  await writeFile(
    project,
    JSON.stringify({
      compilerOptions: {
        ...RESOLUTIONS[resolution],
        target: "ES2022",
        lib: ["ES2023", "DOM", "DOM.Iterable"],
        types: [],
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: false,
        // TypeScript's own lib files need no check here; the packages' declarations do.
        skipDefaultLibCheck: true,
        noEmit: true,
      },
      files,
    }),
  );
  return project;
}

beforeAll(async () => {
  matrix = await matrixForTests("the TypeScript 7 consumer check");
  compilers.push({ name: "TypeScript 5.9", tsc: TSC["5.9"] });
  if (matrix) compilers.push({ name: "TypeScript 7", tsc: matrix.runtimes.get("typescript7")!.path });
  else console.warn(`[consumer types] TypeScript 7 SKIPPED: the runtime matrix is not installed (${INSTALL_HINT})`);
  work = await mkdtemp(path.join(os.tmpdir(), "partner-api-consumer-types-"));
  app = path.join(work, "app");
  await makeApp(app);
  await writeFile(path.join(app, "right.ts"), RIGHT);
  await writeFile(path.join(app, "wrong.ts"), WRONG);
  await writeFile(path.join(app, "probe.ts"), WRONG.replaceAll("  // @ts-expect-error\n", ""));
}, 180_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("the packed client's types in a strict consumer", () => {
  it("the compilers are the ones pinned: TypeScript 5.9 here, 7.x in the matrix", async () => {
    const versions = await Promise.all(
      compilers.map(async (compiler) => (await run(process.execPath, [compiler.tsc, "--version"])).stdout.trim()),
    );
    expect(versions[0]).toMatch(/^Version 5\.9\.\d+$/);
    if (matrix) expect(versions[1]).toMatch(/^Version 7\.\d+\.\d+$/);
  }, 60_000);

  for (const resolution of Object.keys(RESOLUTIONS) as (keyof typeof RESOLUTIONS)[]) {
    it(`right.ts compiles clean and every wrong call fails, with ${resolution} resolution`, async () => {
      const project = await writeProject(resolution, resolution, ["right.ts", "wrong.ts"]);
      const results = await Promise.all(compilers.map((compiler) => tsc(compiler, project)));
      for (const [i, result] of results.entries()) {
        expect(result.output, `${compilers[i]!.name}, ${resolution}`).toBe("");
        expect(result.code, `${compilers[i]!.name}, ${resolution}`).toBe(0);
      }
    }, 240_000);
  }

  it("without the directives, each wrong call is an error at its own line", async () => {
    const probe = await readFile(path.join(app, "probe.ts"), "utf8");
    const lines = WRONG_CASES.map(([, line]) => probe.split("\n").indexOf(`  ${line}`) + 1);
    expect(lines.every((line) => line > 0)).toBe(true);
    const project = await writeProject("probe", "Bundler", ["probe.ts"]);
    const results = await Promise.all(compilers.map((compiler) => tsc(compiler, project)));
    for (const [c, { code, output }] of results.entries()) {
      const name = compilers[c]!.name;
      expect(code, name).not.toBe(0);
      const failing = new Set([...output.matchAll(/probe\.ts\((\d+),\d+\): error/g)].map((match) => Number(match[1])));
      for (const [i, [why]] of WRONG_CASES.entries()) expect(failing.has(lines[i]!), `${name}: ${why}`).toBe(true);
    }
  }, 240_000);
});
