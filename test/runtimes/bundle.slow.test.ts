/**
 * Every runtime: the built package bundles with esbuild for `--platform=browser` and for a worker (platform
 * neutral, the `worker` condition, no Node built-in resolvable), through package.json's export conditions as a
 * partner's bundler meets them. The worker bundle then runs in a V8 context with a worker's Web APIs and nothing
 * of Node's (`vm`: no `require`, `process` or `Buffer`), and the browser bundle in headless Chromium; both check a
 * known-answer signature (valid → the event, tampered → WebhookSignatureError), and the worker makes a client call.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import os from "node:os";
import path from "node:path";
import vm from "node:vm";
import { type BuildOptions, build, type Plugin } from "esbuild";
import type { Browser } from "playwright-core";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chromiumPath as chromiumPathOf,
  hasChromium as hasChromiumAt,
  launchChromium,
} from "../../scripts/lib/chromium.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { SOURCE_CONDITION } from "../../scripts/lib/source.ts";
import { TSC } from "../helpers/strict-tsconfig.ts";
import { BODY, BODY_DIGEST, SECRET } from "../webhooks/known-answers.ts";

const chromiumPath = chromiumPathOf();
const hasChromium = hasChromiumAt();
if (!hasChromium) {
  console.warn(
    `[runtimes bundle test] browser check SKIPPED: no Chromium at ${chromiumPath}. Install it with ` +
      "`apt-get install -y chromium` or set CHROMIUM_PATH; the bundles were still built and the worker bundle run.",
  );
}

/** What a partner's code imports: the package root, by name. */
const ENTRY = `export {
  constructWebhookEventAsync,
  createPartnerClient,
  verifyWebhookSignatureAsync,
  WebhookSignatureError,
} from "partner-api-client";
`;

/** The worker runtime has no Node: any `node:` or bare built-in import fails the build, naming it. */
const noNodeBuiltins: Plugin = {
  name: "no-node-builtins",
  setup(esbuild) {
    const builtins = new Set(builtinModules);
    esbuild.onResolve({ filter: /.*/ }, (args) =>
      args.path.startsWith("node:") || builtins.has(args.path)
        ? { errors: [{ text: `Node built-in "${args.path}" imported by ${path.relative(packageDir, args.importer)}` }] }
        : undefined,
    );
  },
};

/** The globals a worker runtime (Cloudflare Workers, Vercel Edge) offers: Web APIs only, nothing of Node's. */
function workerGlobals(): Record<string, unknown> {
  const names = [
    ...["crypto", "fetch", "Request", "Response", "Headers", "FormData", "Blob", "ReadableStream", "URL"],
    ...["URLSearchParams", "AbortController", "AbortSignal", "TextEncoder", "TextDecoder", "atob", "btoa"],
    ...["setTimeout", "clearTimeout", "setInterval", "clearInterval", "queueMicrotask", "structuredClone"],
    ...["performance", "console"],
  ];
  return Object.fromEntries(names.map((name) => [name, (globalThis as Record<string, unknown>)[name]]));
}

let workDir: string;
let packageDir: string;

/** The package as built by `npm run build` (tsc with tsconfig.build.json, plus schema.d.ts), in a private folder. */
async function buildPackage(): Promise<void> {
  const tsc = TSC["5.9"];
  try {
    execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", path.join(packageDir, "dist")], {
      cwd: repoRoot,
      encoding: "utf8",
      stdio: "pipe",
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`the package does not build (tsc -p tsconfig.build.json):\n${stdout ?? ""}${stderr ?? ""}`);
  }
  await mkdir(path.join(packageDir, "dist", "generated"), { recursive: true });
  await copyFile(
    path.join(repoRoot, "generated", "schema.d.ts"),
    path.join(packageDir, "dist", "generated", "schema.d.ts"),
  );
  await copyFile(path.join(repoRoot, "package.json"), path.join(packageDir, "package.json"));
  // The package's own dependency (openapi-fetch) resolves from the repository's node_modules.
  await symlink(path.join(repoRoot, "node_modules"), path.join(packageDir, "node_modules"), "dir");
  // Inside the package, its name resolves to itself through "exports" (a self-reference), as from a dependant.
  await writeFile(path.join(packageDir, "entry.js"), ENTRY);
}

async function bundle(options: BuildOptions) {
  const result = await build({
    entryPoints: [path.join(packageDir, "entry.js")],
    bundle: true,
    write: false,
    metafile: true,
    format: "iife",
    globalName: "partnerApi",
    logLevel: "silent",
    absWorkingDir: packageDir,
    ...options,
  });
  const [output] = result.outputFiles ?? [];
  if (!output || !result.metafile) throw new Error("esbuild wrote no bundle");
  return { code: output.text, inputs: Object.keys(result.metafile.inputs) };
}

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), "partner-api-runtimes-"));
  packageDir = path.join(workDir, "partner-api-client");
  await mkdir(packageDir);
  await buildPackage();
}, 120_000);

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("the package root in a worker (platform neutral, condition worker, no Node built-ins)", () => {
  const workerOptions: BuildOptions = {
    platform: "neutral",
    conditions: ["worker"],
    mainFields: ["module", "main"],
    plugins: [noNodeBuiltins],
  };

  it("resolves to the web entry and never to node:crypto", async () => {
    const { inputs } = await bundle(workerOptions);
    expect(inputs).toContain("dist/src/index.web.js");
    expect(inputs).toContain("dist/src/webhooks/web.js");
    expect(inputs).not.toContain("dist/src/index.js");
    expect(inputs).not.toContain("dist/src/webhooks/node.js");
  });

  it("would fail on the Node root: without a web condition the bundle meets node:crypto", async () => {
    const attempt = bundle({ ...workerOptions, conditions: [] });
    await expect(attempt).rejects.toThrow(/Node built-in "node:crypto" imported by dist\/src\/webhooks\/node\.js/);
  });

  it("verifies a known-answer signature and makes a client call where only Web APIs exist", async () => {
    const { code } = await bundle(workerOptions);
    const context = vm.createContext(workerGlobals());
    vm.runInContext(code, context);
    const kit = vm.runInContext("partnerApi", context);
    expect(vm.runInContext("[typeof require, typeof process, typeof Buffer].join()", context)).toBe(
      "undefined,undefined,undefined",
    );
    expect(await kit.verifyWebhookSignatureAsync(BODY, BODY_DIGEST, SECRET)).toBe(true);
    expect(await kit.verifyWebhookSignatureAsync(BODY.replace("approved", "rejected"), BODY_DIGEST, SECRET)).toBe(
      false,
    );
    expect((await kit.constructWebhookEventAsync(BODY, BODY_DIGEST, SECRET)).payload.kycStatus).toBe("approved");
    const error = await kit.constructWebhookEventAsync(`${BODY} `, BODY_DIGEST, SECRET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(kit.WebhookSignatureError);
    expect(error.reason).toBe("mismatch");
    // The client works there too: a call goes through the fetch it is given, with the API key.
    const seen: string[] = [];
    const client = kit.createPartnerClient({
      apiKey: "worker-key",
      baseUrl: "https://partner.invalid",
      fetch: async (request: Request) => {
        seen.push(
          `${request.method} ${request.url} ${request.headers.get("authorization") ?? request.headers.get("x-api-key") ?? ""}`,
        );
        return Response.json({ companies: [] });
      },
    });
    const { data } = await client.GET("/v1/companies");
    expect(data).toEqual({ companies: [] });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/^GET https:\/\/partner\.invalid\/v1\/companies .*worker-key/);
  });
});

describe("the package root in a browser bundle (esbuild --platform=browser)", () => {
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
  });

  it("resolves to the web entry", async () => {
    const { inputs } = await bundle({ platform: "browser" });
    expect(inputs).toContain("dist/src/index.web.js");
    expect(inputs).not.toContain("dist/src/webhooks/node.js");
  });

  it.skipIf(!hasChromium)("verifies a known-answer signature in headless Chromium", async () => {
    const { code } = await bundle({ platform: "browser" });
    browser = await launchChromium();
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    // A page of its own origin (localhost is a secure context, so crypto.subtle exists), served by Playwright
    // from memory: nothing leaves the machine.
    await page.route("http://localhost/**", (route) =>
      route.fulfill(
        route.request().url().endsWith("/bundle.js")
          ? { contentType: "text/javascript", body: code }
          : { contentType: "text/html", body: '<!doctype html><script src="/bundle.js"></script>' },
      ),
    );
    await page.goto("http://localhost/");
    const verdicts = await page.evaluate(
      async ({ body, digest, secret }) => {
        const kit = (globalThis as unknown as { partnerApi: Record<string, any> }).partnerApi;
        const event = await kit.constructWebhookEventAsync(body, digest, secret);
        const tampered = await kit
          .constructWebhookEventAsync(body.replace("approved", "rejected"), digest, secret)
          .catch((error: any) => error);
        return {
          isSecureContext,
          valid: await kit.verifyWebhookSignatureAsync(body, digest, secret),
          invalid: await kit.verifyWebhookSignatureAsync(`${body} `, digest, secret),
          eventType: event.type,
          tamperedName: tampered.name,
          tamperedIsSignatureError: tampered instanceof kit.WebhookSignatureError,
          tamperedReason: tampered.reason,
        };
      },
      { body: BODY, digest: BODY_DIGEST, secret: SECRET },
    );
    expect(errors).toEqual([]);
    expect(verdicts).toEqual({
      isSecureContext: true,
      valid: true,
      invalid: false,
      eventType: "company.kyc_status_changed",
      tamperedName: "WebhookSignatureError",
      tamperedIsSignatureError: true,
      tamperedReason: "mismatch",
    });
  });
});

describe("the types of each condition", () => {
  // The web root has no node:crypto functions, so in a browser or worker build their import fails to compile.
  const PROGRAM = `import { constructWebhookEventAsync, createPartnerClient } from "partner-api-client";
// @ts-expect-error only the Node root has the node:crypto functions
import { constructWebhookEvent } from "partner-api-client";
export const used = [constructWebhookEventAsync, createPartnerClient, constructWebhookEvent];
`;
  /** tsc's diagnostics for types.ts under `options`; the lib files are parsed once for all three checks. */
  const parsed = new Map<string, ts.SourceFile | undefined>();
  function typecheck(options: ts.CompilerOptions): string {
    const compilerOptions: ts.CompilerOptions = {
      ...options,
      noEmit: true,
      strict: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      lib: ["lib.es2022.d.ts"],
      types: [],
    };
    const host = ts.createCompilerHost(compilerOptions);
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (file, language, ...rest) => {
      // Only TypeScript's own lib files are shared: how a package's .d.ts is read depends on the module options.
      if (!file.includes("/typescript/lib/")) return getSourceFile(file, language, ...rest);
      if (!parsed.has(file)) parsed.set(file, getSourceFile(file, language, ...rest));
      return parsed.get(file);
    };
    const program = ts.createProgram([path.join(packageDir, "types.ts")], compilerOptions, host);
    return ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))
      .join("\n");
  }

  it("type the worker and browser roots without the node:crypto functions, and the Node root with them", async () => {
    await writeFile(path.join(packageDir, "types.ts"), PROGRAM);
    for (const condition of ["worker", "browser"]) {
      const bundler = { module: ts.ModuleKind.Preserve, moduleResolution: ts.ModuleResolutionKind.Bundler };
      expect(typecheck({ ...bundler, customConditions: [condition] }), condition).toBe("");
    }
    const node = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext };
    expect(typecheck(node)).toMatch(/Unused '@ts-expect-error' directive/);
  });
});

describe("package.json", () => {
  it("gives every export condition of the root a built module and its types", async () => {
    const manifest = JSON.parse(await readFile(path.join(packageDir, "package.json"), "utf8"));
    // First, the repository's own branch: its TypeScript sources (scripts/lib/source.ts), which are not packed.
    const { [SOURCE_CONDITION]: source, ...root } = manifest.exports["."];
    expect(Object.keys(manifest.exports["."])[0]).toBe(SOURCE_CONDITION);
    for (const file of Object.values<string>(source)) expect(existsSync(path.join(repoRoot, file)), file).toBe(true);
    expect(source.node).toBe("./src/index.ts");
    expect(source.browser).toBe("./src/index.web.ts");
    const targets = Object.entries<any>(root).flatMap(([condition, target]) =>
      typeof target === "string"
        ? [[condition, target]]
        : Object.entries<string>(target).map(([inner, file]) => [`${condition}.${inner}`, file]),
    );
    for (const [condition, file] of targets)
      expect(existsSync(path.join(packageDir, file!)), `${condition} → ${file}`).toBe(true);
    for (const condition of ["browser", "worker", "workerd", "edge-light"])
      expect(root[condition], condition).toEqual({
        types: "./dist/src/index.web.d.ts",
        default: "./dist/src/index.web.js",
      });
    // Node, and runtimes that claim to be Node (Deno, Bun), keep the root with the node:crypto functions.
    expect(Object.keys(root)[0]).toBe("node");
    expect(root.node).toEqual({ types: root.types, default: root.default });
    expect(root.default).toBe("./dist/src/index.js");
    expect(manifest.browser).toBe("./dist/src/index.web.js");
  });
});
