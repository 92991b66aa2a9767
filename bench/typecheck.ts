/**
 * Consumer type-check cost: `tsc --noEmit --extendedDiagnostics` of a consumer file calling all 15 operations
 * through the installed package (its built .d.ts), against an empty file in the same project.
 */
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { followRefs } from "partner-api-devkit/cli";
import { contractFacts } from "../scripts/lib/generate.ts";
import type { Benchmark } from "./context.ts";
import { median, roundOrder, timeCommand } from "./harness.ts";
import type { Figure, Ratio } from "./results.ts";

type Json = Record<string, unknown>;

/** A TypeScript module that calls every operation of the bundled contract with the package's client, as a partner would. */
export function consumerSource(document: Json, packageName: string): { source: string; operations: number } {
  const lines = [
    `import { createPartnerClient, unwrap } from "${packageName}";`,
    "",
    `const client = createPartnerClient({ apiKey: process.env.PARTNER_API_KEY ?? "", baseUrl: "http://127.0.0.1:4010" });`,
    `const company = client.forCompany("01JD8X4M6Q2V7R9T3W5Y0Z1A2B");`,
    "",
    "export async function callEveryOperation(): Promise<unknown[]> {",
    "  const results: unknown[] = [];",
  ];
  // The operations as the generator reads them for the client (scripts/lib/generate.ts), in document order.
  const facts = Object.values(contractFacts(document).operations);
  for (const { method, path: route, companyScope } of facts) {
    const item = followRefs<Json>(document, (document.paths as Record<string, Json>)[route]);
    const operation = item[method.toLowerCase()] as Json;
    const parameters = [...((item.parameters as unknown[]) ?? []), ...((operation.parameters as unknown[]) ?? [])].map(
      (p) => followRefs<Json>(document, p),
    );
    const pathParams = Object.fromEntries(
      parameters
        .filter((p) => p.in === "path")
        .map((p) => [
          p.name as string,
          (followRefs<Json>(document, p.schema).example as string | undefined) ?? "01JD8X9N4E2R6T8V0W2Y4Z6A8C",
        ]),
    );
    const init: string[] = [];
    if (Object.keys(pathParams).length > 0) init.push(`params: { path: ${JSON.stringify(pathParams)} }`);
    const content = operation.requestBody
      ? (followRefs<Json>(document, operation.requestBody).content as Record<string, Json> | undefined)
      : undefined;
    const examples = content?.["application/json"]?.examples as Record<string, unknown> | undefined;
    const example = examples ? followRefs<Json>(document, Object.values(examples)[0]).value : undefined;
    if (example !== undefined) init.push(`body: ${JSON.stringify(example)}`);
    const caller = companyScope ? "company" : "client";
    const args = init.length > 0 ? `, { ${init.join(", ")} }` : "";
    lines.push(`  // ${String(operation.operationId)}`);
    lines.push(`  results.push(unwrap(await ${caller}.${method.toUpperCase()}(${JSON.stringify(route)}${args})));`);
  }
  lines.push("  return results;", "}", "");
  return { source: lines.join("\n"), operations: facts.length };
}

/** The numbers `tsc --extendedDiagnostics` prints that this benchmark reports. */
export function parseDiagnostics(output: string): {
  checkMs: number;
  totalMs: number;
  instantiations: number;
  memoryKiB: number;
} {
  const field = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+([\\d.]+)(s|K)?`, "m").exec(output);
    if (!match) throw new Error(`tsc --extendedDiagnostics printed no "${name}" line`);
    return Number(match[1]) * (match[2] === "s" ? 1000 : 1);
  };
  return {
    checkMs: field("Check time"),
    totalMs: field("Total time"),
    instantiations: field("Instantiations"),
    memoryKiB: field("Memory used"),
  };
}

export const typecheckBenchmark: Benchmark = {
  name: "typecheck",
  title: "Consumer type-check cost",
  async run({ size, builtSandbox, progress }) {
    const dir = await builtSandbox();
    const packageName = (JSON.parse(await readFile(path.join(dir, "package.json"), "utf8")) as { name: string }).name;
    const document = JSON.parse(await readFile(path.join(dir, "generated", "openapi.json"), "utf8")) as Json;
    const consumer = path.join(dir, ".bench-consumer");
    await mkdir(path.join(consumer, "node_modules"), { recursive: true });
    // The package as a consumer sees it once installed: resolved through its package.json `exports` to dist/.
    await symlink(dir, path.join(consumer, "node_modules", packageName), "dir").catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code !== "EEXIST") throw error;
      },
    );
    const { source, operations } = consumerSource(document, packageName);
    await writeFile(path.join(consumer, "all-operations.ts"), source);
    await writeFile(path.join(consumer, "empty.ts"), "export {};\n");
    const compilerOptions = {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ["node"],
      lib: ["ES2023", "DOM"],
    };
    for (const name of ["all-operations", "empty"]) {
      await writeFile(
        path.join(consumer, `tsconfig.${name}.json`),
        JSON.stringify({ compilerOptions, files: [`${name}.ts`] }, null, 2),
      );
    }
    const tsc = path.join(dir, "node_modules", "typescript", "bin", "tsc");
    const rounds = size === "full" ? 7 : size === "quick" ? 3 : 1;
    const samples: Record<string, ReturnType<typeof parseDiagnostics>[]> = { "all-operations": [], empty: [] };
    for (let round = 0; round < rounds; round++) {
      for (const name of roundOrder(["all-operations", "empty"], round)) {
        const run = await timeCommand(`tsc of ${name}.ts`, {
          command: process.execPath,
          args: [tsc, "--noEmit", "--extendedDiagnostics", "-p", `tsconfig.${name}.json`],
          cwd: consumer,
        }).catch((error: Error) => {
          throw new Error(
            error.message.includes("TS2589")
              ? `TS2589 (type instantiation excessively deep) in the consumer file: ${error.message}`
              : error.message,
          );
        });
        if (run.stdout.includes("TS2589")) throw new Error(`TS2589 in the consumer file:\n${run.stdout}`);
        samples[name]!.push(parseDiagnostics(run.stdout));
      }
      progress(`typecheck: round ${round + 1}/${rounds}`);
    }
    const med = (name: string, key: keyof ReturnType<typeof parseDiagnostics>) =>
      median(samples[name]!.map((s) => s[key]));
    const figures: Figure[] = [];
    for (const [name, label] of [
      ["all-operations", `file calling all ${operations} operations`],
      ["empty", "empty file"],
    ] as const) {
      figures.push(
        { label: `${label}: check time`, value: med(name, "checkMs"), unit: "ms" },
        { label: `${label}: total tsc time`, value: med(name, "totalMs"), unit: "ms" },
        { label: `${label}: type instantiations`, value: med(name, "instantiations"), unit: "instantiations" },
        { label: `${label}: memory used`, value: med(name, "memoryKiB") / 1024, unit: "MiB" },
      );
    }
    figures.push({
      label: `check time the ${operations} calls add over the empty file`,
      value: med("all-operations", "checkMs") - med("empty", "checkMs"),
      unit: "ms",
    });
    figures.push({
      label: "type instantiations per call",
      value: (med("all-operations", "instantiations") - med("empty", "instantiations")) / operations,
      unit: "instantiations",
    });
    const ratios: Ratio[] = [
      {
        label: "total tsc time, all operations ÷ empty file",
        value: med("all-operations", "totalMs") / med("empty", "totalMs"),
      },
      {
        label: "memory, all operations ÷ empty file",
        value: med("all-operations", "memoryKiB") / med("empty", "memoryKiB"),
      },
    ];
    return {
      name: this.name,
      title: this.title,
      method:
        `TypeScript ${(JSON.parse(await readFile(path.join(dir, "node_modules", "typescript", "package.json"), "utf8")) as { version: string }).version} ` +
        "`tsc --noEmit --extendedDiagnostics` in a consumer project (strict, NodeNext, skipLibCheck) that imports the package through its " +
        `\`exports\` (the built .d.ts after \`npm run build\`). The consumer file is generated from the contract: one call per operation ` +
        `(${operations}), path parameters from the schemas' examples, bodies from the first named example, each result through \`unwrap\`. ` +
        "Baseline: an empty file in the same project. Alternating rounds; medians. No TS2589 (the run fails if one appears).",
      figures,
      ratios,
      notes: [`No TS2589 and no other error: tsc exited 0 on the consumer file in each of the ${rounds} round(s).`],
    };
  },
};
