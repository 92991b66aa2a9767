/**
 * The devkit's build (devkit/scripts/build.ts, `bundleDevkit`) into a scratch dist/: what goes into the bundles is
 * devkit/src and nothing else. The client is an import of the partner's installed `partner-api-client`, never a
 * copy of src/webhooks/ frozen at build time. The whole package, packed and installed, is test/devkit/installed.slow.test.ts.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type Bundled, bundleDevkit } from "../../devkit/scripts/build.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";

let work: string;
let dist: string;
let bundled: Bundled;

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), "partner-api-devkit-build-"));
  dist = path.join(work, "dist");
  mkdirSync(dist);
  copyFileSync(path.join(repoRoot, "devkit", "package.json"), path.join(work, "package.json"));
  bundled = await bundleDevkit(dist, { out: () => undefined, err: () => undefined });
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

function builtCode(): string {
  return readdirSync(dist, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".js"))
    .map((file) => readFileSync(path.join(dist, file), "utf8"))
    .join("\n");
}

describe("the devkit's bundles", () => {
  it("hold only devkit/src: no file of the client (src/), of src/webhooks/ or of scripts/", () => {
    expect(bundled.inputs.size).toBeGreaterThan(10);
    // The contracts the msw entry bundles as data (a browser has no files to read them from) aside.
    const contracts = ["generated/openapi.json", "generated/sandbox.json"];
    expect([...bundled.inputs].filter((file) => !file.startsWith("devkit/src/") && !contracts.includes(file))).toEqual(
      [],
    );
    expect(bundled.inputs).toContain("devkit/src/webhooks/deliver.ts");
    expect(bundled.inputs).toContain("devkit/src/cli/runner.ts");
  });

  it("import the client as the package partner-api-client, a peer dependency of the devkit", () => {
    expect(bundled.imported).toContain("partner-api-client");
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, "devkit", "package.json"), "utf8"));
    expect(Object.keys(manifest.peerDependencies)).toEqual(["partner-api-client", "msw"]);
    expect(manifest.dependencies).not.toHaveProperty("partner-api-client");
    const code = builtCode();
    expect(code).toMatch(/import \{[^}]*\bsignWebhookPayloadAsync\b[^}]*\} from "partner-api-client"/);
    expect(code).toMatch(/import \{[^}]*\bcreateWebhookHandler\b[^}]*\} from "partner-api-client"/);
  });

  it("leave node:sqlite to the runtime: the state file's store takes Node's built-in module when it starts, bundling none of it", () => {
    expect(bundled.inputs).toContain("devkit/src/sandbox/store/sqlite-store.ts");
    const code = builtCode();
    expect(code).toContain('process.getBuiltinModule?.("node:sqlite")');
    // Nothing of SQLite itself, nor a package standing in for it.
    expect(code).not.toMatch(/sqlite3_|better-sqlite3|sql\.js/);
    expect([...bundled.imported].filter((name) => /sqlite/i.test(name))).toEqual([]);
  });

  it("define none of the client's webhook functions (the check sees a definition when there is one)", () => {
    const code = builtCode();
    const clientSigning = readFileSync(path.join(repoRoot, "src", "webhooks", "node.ts"), "utf8");
    const definition = (name: string) => new RegExp(`function ${name}\\b`);
    // The pattern finds the definition in the client's own source, so its absence from the bundles means something.
    expect(clientSigning).toMatch(definition("signWebhookPayload"));
    for (const name of ["signWebhookPayload", "verifyWebhookSignature", "createWebhookHandler", "parseWebhookEvent"])
      expect(code, name).not.toMatch(definition(name));
  });

  it("put the shebang on the executable only, and the shared code in dist/chunks/", () => {
    expect(readFileSync(path.join(dist, "cli.js"), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
    expect(readFileSync(path.join(dist, "cli-kit.js"), "utf8")).not.toMatch(/^#!/);
    expect(readdirSync(path.join(dist, "chunks")).length).toBeGreaterThan(0);
  });

  it("carry the workflows of openapi/workflows, each source pointed at a file beside it in dist/", () => {
    const shipped = readdirSync(path.join(repoRoot, "openapi", "workflows")).filter((file) =>
      file.endsWith(".arazzo.yaml"),
    );
    expect(shipped.length).toBeGreaterThan(1);
    expect(readdirSync(path.join(dist, "workflows")).sort()).toEqual(shipped.sort());
    for (const file of shipped) {
      const packaged = parse(readFileSync(path.join(dist, "workflows", file), "utf8"));
      const original = parse(readFileSync(path.join(repoRoot, "openapi", "workflows", file), "utf8"));
      expect(packaged.workflows).toEqual(original.workflows);
      for (const source of packaged.sourceDescriptions as { url: string; type?: string }[]) {
        expect(source.url, file).toMatch(
          source.type === "arazzo" ? /\.arazzo\.yaml$/ : /^\.\.\/(openapi|sandbox)\.json$/,
        );
        expect(existsSync(path.resolve(dist, "workflows", source.url)), `${file}: ${source.url}`).toBe(true);
      }
    }
  });
});
