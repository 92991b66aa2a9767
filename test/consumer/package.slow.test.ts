/**
 * The package as another repo sees it: `npm run build`, `npm pack`, then a fresh project outside this
 * repo installs the tarball, type-checks a program with strict TypeScript and runs it against a
 * Prism mock of the contract. The program is compiled by TypeScript 7 (a native compiler, a sixth of 5.9's CPU);
 * the client's declarations meet TypeScript 5.9 and 7 both in test/consumer/typescript.slow.test.ts.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type PrismServer, startPrism } from "../../devkit/src/prism.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { SOURCE_NODE_ARGS } from "../../scripts/lib/source.ts";
import { lockDist } from "../helpers/build-lock.ts";
import { TSC } from "../helpers/strict-tsconfig.ts";

const tsc = TSC["7"];

/** The environment for a nested npm: without the npm_* variables of an enclosing `npm test`. */
const npmEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) || /^npm_config_(cache|registry)$/i.test(key)),
);

function run(command: string, args: string[], cwd: string): string {
  try {
    return execFileSync(command, args, { cwd, env: npmEnv, encoding: "utf8", stdio: "pipe", timeout: 120_000 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${path.basename(command)} ${args.join(" ")} failed:\n${stdout ?? ""}${stderr ?? ""}`);
  }
}

const npm = (args: string[], cwd: string) => run(process.platform === "win32" ? "npm.cmd" : "npm", args, cwd);

function sourceModules(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceModules(path.join(dir, entry.name), `${prefix}${entry.name}/`)
      : entry.name.endsWith(".ts")
        ? [`${prefix}${entry.name.slice(0, -3)}`]
        : [],
  );
}

const PROGRAM = `
import { createPartnerClient, paginate, unwrap, InvalidInputError, type CompanyClient } from "partner-api-client";
import type { components, paths } from "partner-api-client/types";
import spec from "partner-api-client/openapi.json" with { type: "json" };

const baseUrl = process.env.PARTNER_BASE_URL;
if (!baseUrl) throw new Error("PARTNER_BASE_URL is not set");
const COMPANY = "01JD8X2K7P3M9Q4R6S8T0V2W4X";
const ID = "01JD8X9N4E2R6T8V0W2Y4Z6A8C";

const client = createPartnerClient({ apiKey: "consumer-test-key", baseUrl, timeoutMs: 10_000 });
const company: CompanyClient = client.forCompany(COMPANY);

const transaction: components["schemas"]["GetTransactionResponse"] = unwrap(await client.GET("/transactions/{transactionId}", { params: { path: { transactionId: ID } } }));
const calls: Record<string, unknown> = {
  getTransaction: transaction.transaction?.status,
  listCards: unwrap(await company.GET("/v1/cards", { params: { query: { page: 1, limit: 20 } } })).cards?.length,
  createCard: unwrap(await company.POST("/v1/cards", { body: { cardHolderId: ID, name: "Travel", category: "TravelExpenses", bin: "489514" } })).card?.status,
  updateCardSpendSettings: unwrap(await company.PATCH("/v1/cards/{cardId}/spend-settings", { params: { path: { cardId: ID } }, body: { isUnlimitedLimitPerTransaction: false, limitPerTransaction: 250, isAllowedAllCurrencies: true } })),
  unfreezeCard: unwrap(await company.PATCH("/v1/cards/{cardId}/unfreeze", { params: { path: { cardId: ID } }, body: {} })),
  createCardDetailsToken: typeof unwrap(await company.POST("/v1/cards/{cardId}/details", { params: { path: { cardId: ID } } })).data?.accessToken,
  getCardHolder: unwrap(await company.GET("/v1/card-holders/{cardHolderId}", { params: { path: { cardHolderId: ID } } })).cardHolder?.status,
  listCardBins: unwrap(await company.GET("/v1/card-bins")).cardBins?.length,
  listSpendingAccountTransactions: unwrap(await company.GET("/v1/card-spending-account/transactions", { params: { query: { type: "Debit", orderBy: "createdAt", orderDirection: "DESC" } } })).transactions?.length,
  openWalletAddress: unwrap(await company.POST("/v1/wallets/{walletId}/addresses", { params: { path: { walletId: "wallet-usdt-main" } }, body: { chain: "TRX" } })).address?.chain,
  onboardCompany: unwrap(await client.POST("/v1/companies", { body: { name: "Acme", countryCode: "US", directorName: "Maria Garcia", directorEmail: "maria@acme.example", directorPhone: "+14155550123", addressLine1: "500 Market Street", city: "San Francisco", state: "CA", postalCode: "94105", products: ["Card"] } })).company?.status,
  listCompanies: unwrap(await client.GET("/v1/companies")).companies?.length,
  submitKybProfile: unwrap(await company.POST("/v1/kyb-profiles", { body: { companyName: "Acme", industry: "511210", registrationCountry: "US", registrationNumber: "7286451", uboFirstName: "Maria", uboLastName: "Garcia", uboGender: "FEMALE", uboCountryCode: "US", uboIdType: "PASSPORT", uboIdNumber: "563218907", uboDob: "1984-03-17" } })).status,
  getPaymentRoute: unwrap(await company.GET("/v1/payment-routes/{routeId}", { params: { path: { routeId: ID } } })).paymentRoute?.type,
  getPaymentInstructions: typeof unwrap(await company.GET("/v1/payment-routes/{routeId}/payment-instructions", { params: { path: { routeId: ID } } })).url,
};

const cards: components["schemas"]["Card"][] = [];
for await (const card of paginate(company, "/v1/cards", { params: { query: { limit: 20 } }, maxItems: 100 })) cards.push(card);
let ledger = 0;
for await (const entry of paginate(client, "/v1/card-spending-account/transactions", { params: { header: { "X-Company-Id": COMPANY } } })) ledger += entry.transaction?.id ? 1 : 0;

let badId = "";
try {
  await company.GET("/v1/card-holders/{cardHolderId}", { params: { path: { cardHolderId: "../x" } } });
} catch (error) {
  if (error instanceof InvalidInputError) badId = error.input;
}
type CardsPath = keyof paths & "/v1/cards";
const cardsPath: CardsPath = "/v1/cards";
console.log(JSON.stringify({ calls, cards: cards.length, ledger, badId, cardsPath, openapi: spec.openapi }));
`;

/** The scratch folder, the packed tarball and the mock: set up once by the describe's beforeAll. */
let work: string;
let tarball: string;
let packed: { path: string }[];
let prism: PrismServer | undefined;
let releaseDist: (() => Promise<void>) | undefined;

/** What the tarball holds. */
function packContents(): void {
  test("npm pack holds exactly what a consumer needs", () => {
    const modules = sourceModules(path.join(repoRoot, "src"));
    const expected = [
      "README.md",
      "package.json",
      "generated/openapi.json",
      "generated/openapi.yaml",
      "dist/generated/contract.js",
      "dist/generated/contract.d.ts",
      "dist/generated/schema.d.ts",
      ...modules.flatMap((module) => [`dist/src/${module}.js`, `dist/src/${module}.d.ts`]),
    ].filter((file) => file !== "README.md" || existsSync(path.join(repoRoot, "README.md")));
    expect(packed.map((file) => file.path).sort()).toEqual(expected.sort());
    expect(modules).toContain("index");
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.dependencies).toEqual({ "openapi-fetch": "0.17.0" });
  });

  test("nothing packed names a path of the build machine", () => {
    for (const { path: file } of packed.filter((f) => f.path.startsWith("dist/"))) {
      const text = readFileSync(path.join(repoRoot, file), "utf8");
      expect(text, file).not.toContain(repoRoot);
      if (file.endsWith(".js")) expect(text, file).not.toMatch(/from "\.{1,2}\/[^"]*\.ts"/);
    }
  });
}

/** Another project installing and using it. */
function installedElsewhere(): void {
  test("another project installs the tarball, type-checks strictly and calls every operation against the mock", async () => {
    const project = path.join(work, "consumer");
    const started = performance.now();
    execFileSync("mkdir", ["-p", project]);
    writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2),
    );
    writeFileSync(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2023", "DOM", "DOM.Iterable"],
          types: [],
          resolveJsonModule: true,
          skipLibCheck: false,
          // TypeScript's own lib files need no check here; the package's declarations do.
          skipDefaultLibCheck: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          outDir: "out",
        },
        files: ["main.ts", "env.d.ts"],
      }),
    );
    writeFileSync(
      path.join(project, "env.d.ts"),
      "declare const process: { env: Record<string, string | undefined> };\n",
    );
    writeFileSync(path.join(project, "main.ts"), PROGRAM);
    npm(["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], project);

    const tree = JSON.parse(npm(["ls", "--all", "--omit=dev", "--json"], project)) as {
      dependencies: Record<string, { dependencies?: Record<string, unknown> }>;
    };
    expect(Object.keys(tree.dependencies)).toEqual(["partner-api-client"]);
    expect(Object.keys(tree.dependencies["partner-api-client"]!.dependencies ?? {})).toEqual(["openapi-fetch"]);

    run(process.execPath, [tsc, "-p", project], project);

    // A wrong call fails to compile in the consumer too.
    writeFileSync(
      path.join(project, "wrong.ts"),
      `import { createPartnerClient } from "partner-api-client";\nawait createPartnerClient({ apiKey: "k", baseUrl: "http://x" }).GET("/v1/cards");\n`,
    );
    writeFileSync(
      path.join(project, "tsconfig.wrong.json"),
      JSON.stringify({ extends: "./tsconfig.json", compilerOptions: { noEmit: true }, files: ["wrong.ts"] }),
    );
    expect(() => run(process.execPath, [tsc, "-p", path.join(project, "tsconfig.wrong.json")], project)).toThrow(
      /wrong\.ts\(2,\d+\): error TS2554: Expected 2 arguments/,
    );

    prism = await startPrism();
    const output = execFileSync(process.execPath, [path.join(project, "out", "main.js")], {
      cwd: project,
      env: { ...npmEnv, PARTNER_BASE_URL: prism.url },
      encoding: "utf8",
      timeout: 60_000,
    });
    const summary = JSON.parse(output.trim().split("\n").at(-1)!) as Record<string, any>;
    expect(Object.keys(summary.calls)).toHaveLength(15);
    for (const [operation, value] of Object.entries(summary.calls)) expect(value, operation).not.toBeUndefined();
    expect(summary.calls.createCardDetailsToken).toBe("string");
    expect(summary.calls.getPaymentInstructions).toBe("string");
    expect(summary.cards).toBeGreaterThan(0);
    expect(summary.ledger).toBeGreaterThan(0);
    expect(summary.badId).toBe("cardHolderId");
    expect(summary.openapi).toBe("3.1.0");
    console.info(`consumer project: installed, type-checked and ran in ${Math.round(performance.now() - started)} ms`);
  }, 120_000);
}

describe("the published package", () => {
  beforeAll(async () => {
    // Held until afterAll: these tests read dist/, which another test's `npm pack` would rebuild meanwhile.
    releaseDist = await lockDist();
    work = mkdtempSync(path.join(os.tmpdir(), "partner-api-consumer-"));
    run(process.execPath, [...SOURCE_NODE_ARGS, "scripts/build.ts"], repoRoot);
    const [result] = JSON.parse(npm(["pack", "--json", "--pack-destination", work], repoRoot)) as {
      filename: string;
      files: { path: string }[];
    }[];
    tarball = path.join(work, result!.filename);
    packed = result!.files;
  }, 420_000);

  afterAll(async () => {
    await releaseDist?.();
    await prism?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  packContents();
  installedElsewhere();
});
