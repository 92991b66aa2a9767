/**
 * `npm run docs`: the rendered reference, built from the bundled contract with Redocly's
 * `build-docs` into one self-contained page (dist/docs/index.html) plus the contract beside it.
 *
 * Self-contained means: Redoc's script is inlined from the installed @redocly/cli (`--inlineBundle`),
 * the page carries a Content-Security-Policy that forbids loading from any other host, Redocly's
 * telemetry is off, and the two images Redoc would fetch from its CDN (the attribution logo) are
 * replaced by a local wordmark. The build fails when the output still names an asset CDN.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { ensureBundle } from "../bundle.ts";
import { rel, repoRoot, sandboxBundleJsonPath, sandboxBundleYamlPath } from "../paths.ts";
import { readReleasedContract, releasedContracts } from "../release/versions.ts";
import { DASHBOARD_SCREENSHOTS, takeDashboardScreenshots } from "./dashboard-screenshots.ts";
import { errorsDocument } from "./errors.ts";
import { addGettingStarted } from "./getting-started.ts";
import {
  CHANGELOG_PAGE,
  changelogDocument,
  ERRORS_PAGE,
  type NavPage,
  type NavVersion,
  navHtml,
  REFERENCE_PAGE,
  releasedReferenceDocument,
  TRY_IT_PAGE,
  versionPage,
  withNav,
  withShortHeading,
} from "./pages.ts";
import { SAMPLE_RUNTIMES } from "./sample-runtimes.ts";
import { addCodeSamples, CODE_SAMPLE_LANGUAGES, SAMPLE_LANGUAGES } from "./samples.ts";
import { takeScreenshots } from "./screenshots.ts";
import { withJoinedDescriptions } from "./soft-breaks.ts";
import { writeTryIt } from "./try-it.ts";
import { addWorkflows, WORKFLOWS_FOLDER, workflowsSection } from "./workflows.ts";

/** The sidebar section that lists every component schema. */
export const SCHEMAS_TAG = "Schemas";

export const docsDir = path.join(repoRoot, "dist", "docs");
export const templatePath = path.join(path.dirname(fileURLToPath(import.meta.url)), "template.hbs");

const require = createRequire(import.meta.url);

/** The Redocly CLI entry point of the installed package (never a global or downloaded one). */
export function redoclyCliPath(): string {
  return require.resolve("@redocly/cli/bin/cli.js");
}

const attributionWordmark = (text: string, width: number) =>
  `data:image/svg+xml,${encodeURIComponent(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" viewBox="0 0 ${width} 20">` +
      `<text x="0" y="15" font-family="sans-serif" font-size="14" font-weight="600" fill="#0044D4">${text}</text></svg>`,
  )}`;

/**
 * Remote assets Redoc's inlined script names, and what replaces each.
 * - Redoc shows "API docs by Redocly" with an image from its CDN and has no option to turn that off:
 *   the attribution and its link stay, the image becomes a local wordmark.
 * - Redoc's icon packs live on its CDN; this page uses none of them (the browser test proves no
 *   icon is requested), so their base becomes a same-origin folder: should a later Redoc ask for
 *   one, the request stays on the page's host and the browser test reports it as a failed request.
 */
export const ASSET_REPLACEMENTS: ReadonlyArray<{ remote: string; local: string }> = [
  { remote: "https://cdn.redoc.ly/redoc/logo-mini-full.svg", local: attributionWordmark("Redocly", 64) },
  { remote: "https://cdn.redoc.ly/redoc/logo-mini.svg", local: attributionWordmark("R", 12) },
  { remote: "https://cdn.redocly.com/icons/fa/7.0.0", local: "redoc-icons/fa" },
  { remote: "https://cdn.redocly.com/icons/code/5.24.0", local: "redoc-icons/code" },
];

/** Hosts the page must never load from; the build fails when one is still named in the output. */
export const FORBIDDEN_ASSET_HOSTS = [
  "cdn.redoc.ly",
  "cdn.redocly.com",
  "fonts.googleapis.com",
  "fonts.gstatic.com",
  "unpkg.com",
  "cdn.jsdelivr.net",
];

/**
 * Third-party references that would make the browser load something: script/link/img/iframe sources,
 * CSS `url()` and `@import`, module imports, and any mention of a known asset CDN. Plain links
 * (`<a href>`) and URLs inside texts are not loads and are not reported.
 */
export function findExternalLoads(html: string): string[] {
  const found = new Set<string>();
  const patterns = [
    /<(?:script|img|iframe|embed|source|audio|video|track|input)\b[^>]*?\bsrc\s*=\s*["']?((?:https?:)?\/\/[^"'\s>]+)/gi,
    /<link\b[^>]*?\bhref\s*=\s*["']?((?:https?:)?\/\/[^"'\s>]+)/gi,
    /@import\s+(?:url\()?\s*["']?((?:https?:)?\/\/[^"')\s;]+)/gi,
    /url\(\s*["']?((?:https?:)?\/\/[^"')\s]+)/gi,
    /\bimport\s*(?:[\w*{}\s,]+\s*from\s*)?["']((?:https?:)?\/\/[^"']+)["']/g,
  ];
  for (const pattern of patterns) for (const match of html.matchAll(pattern)) found.add(match[1]!);
  for (const host of FORBIDDEN_ASSET_HOSTS) {
    for (const match of html.matchAll(new RegExp(`(?:https?:)?//${host.replace(/\./g, "\\.")}[^"'\`\\s)]*`, "g")))
      found.add(match[0]);
  }
  return [...found].sort();
}

/** Swaps the known remote assets for local ones; throws when one of them is no longer in the page (Redoc changed). */
export function replaceRemoteAssets(html: string): string {
  let result = html;
  for (const { remote } of ASSET_REPLACEMENTS) {
    if (!result.includes(remote)) {
      throw new Error(
        `Redoc no longer references ${remote}; check the page for new remote assets and update ASSET_REPLACEMENTS in scripts/lib/docs/build.ts`,
      );
    }
  }
  for (const { remote, local } of ASSET_REPLACEMENTS) result = result.split(remote).join(local);
  return result;
}

export interface DocsBuildOptions {
  /** Where index.html and its assets go; dist/docs by default. */
  outDir?: string;
  /** Progress lines (one per stage). */
  onProgress?: (message: string) => void;
  /** PNGs of the first page, of one operation and of each dashboard view beside index.html (headless Chromium); default true. */
  screenshots?: boolean;
}

export interface DocsBuildResult {
  outDir: string;
  indexPath: string;
  /** The reference's files, relative to outDir. */
  files: string[];
  /** Try it, Errors, Changelog and each released version's reference, relative to outDir. */
  pageFiles: string[];
  /** The released versions the switcher lists below the latest, newest first (each release once). */
  versions: string[];
  /** The Workflows section's files (the Arazzo documents and a diagram a workflow), relative to outDir. */
  workflowFiles: string[];
  /** The Sandbox control page and its contract, relative to outDir; empty without generated/sandbox.json. */
  sandboxFiles: string[];
  /** Screenshot PNGs written (absolute paths); empty when skipped or turned off. */
  screenshots: string[];
  /** PNGs of each view of the sandbox dashboard (absolute paths), shown on the Sandbox control page. */
  dashboardScreenshots: string[];
  indexBytes: number;
  operations: number;
  webhooks: number;
  samples: number;
  /** Bundle files `ensureBundle()` rewrote because they were stale. */
  bundleWritten: string[];
  redoclyMs: number;
}

async function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

/** Redoc options from redocly.yaml's `openapi:` key, so the lead can tune the page there. */
async function configuredRedocOptions(): Promise<Record<string, unknown>> {
  const text = await readFile(path.join(repoRoot, "redocly.yaml"), "utf8").catch(() => "");
  const config = (parse(text) ?? {}) as Record<string, unknown>;
  const options = config.openapi;
  return typeof options === "object" && options !== null ? (options as Record<string, unknown>) : {};
}

/** Where the sandbox's control API page goes, beside index.html; the reference links to it. */
export const SANDBOX_PAGE = "sandbox.html";
export const SANDBOX_SECTION_TITLE = "Sandbox control";

/** The reference's own section pointing at the control API page (Redoc lists `##` headings in the sidebar). */
function withSandboxLink(document: Record<string, unknown>): Record<string, unknown> {
  const info = (document.info ?? {}) as Record<string, unknown>;
  const section =
    `## ${SANDBOX_SECTION_TITLE}\n\n` +
    "The sandbox that runs on your machine (`partner-api-devkit`) has its own control API under `/_sandbox/`: " +
    "reset, the clock, webhook endpoints and what happens to companies and money. " +
    `It is documented on its own page: [${SANDBOX_SECTION_TITLE}](${SANDBOX_PAGE}).`;
  return { ...document, info: { ...info, description: `${info.description ?? ""}\n\n${section}` } };
}

/** What each dashboard screenshot shows, in the order the page's menu lists the views. */
const DASHBOARD_CAPTIONS: Record<string, string> = {
  [DASHBOARD_SCREENSHOTS.accounts]:
    "Accounts: each company's onboarding, KYC, terms and KYB with the buttons that move them, cards, routes, wallets and the ledger",
  [DASHBOARD_SCREENSHOTS.events]:
    "Events: every event with its payload, each delivery attempt (time, status, duration), the next retry and resend",
  [DASHBOARD_SCREENSHOTS.requests]:
    "Requests: the request log, live, with the fault applied and whether the answer matched the contract",
  [DASHBOARD_SCREENSHOTS.clock]: "Clock and faults: advance, freeze and resume the clock; add and remove faults",
  [DASHBOARD_SCREENSHOTS.console]:
    "Console: the API reference with a Test Request client that sends to the sandbox as the chosen account",
};

/**
 * The control API's page: titled "Sandbox control", opening with the dashboard (its screenshots, when they
 * were taken), with a link back to the reference.
 */
function asSandboxPage(document: Record<string, unknown>, dashboardShots: readonly string[]): Record<string, unknown> {
  const info = (document.info ?? {}) as Record<string, unknown>;
  const back = "[Back to the partner API reference](index.html).";
  const dashboard =
    dashboardShots.length === 0
      ? ""
      : "## The dashboard\n\nOpen the sandbox's address (`http://127.0.0.1:4020/`) in a browser: the dashboard reads " +
        "and drives everything below through this control API, with nothing loaded from another host.\n\n" +
        dashboardShots
          .map(
            (file) =>
              `[![${DASHBOARD_CAPTIONS[file] ?? file}](${file})](${file})\n\n*${DASHBOARD_CAPTIONS[file] ?? file}* ([full size](${file}))`,
          )
          .join("\n\n");
  return {
    ...document,
    info: {
      ...info,
      title: SANDBOX_SECTION_TITLE,
      description: [info.description ?? "", dashboard, back].filter(Boolean).join("\n\n").trim(),
    },
  };
}

/**
 * Redoc prints a server's description as plain text, so Markdown in it showed as literal backticks: the rendered
 * copy has code spans unwrapped (the contract keeps its Markdown for tools that render it).
 */
export function withPlainServerDescriptions(document: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(document.servers)) return document;
  const servers = document.servers.map((server: unknown) => {
    if (typeof server !== "object" || server === null) return server;
    const description = (server as { description?: unknown }).description;
    return typeof description === "string"
      ? { ...server, description: description.replace(/`([^`]*)`/g, "$1").trim() }
      : server;
  });
  return { ...document, servers };
}

/** Which languages the samples are in, and which of them a test runs against the sandbox (getting-started's note). */
export function samplesNote(): string {
  const executed = SAMPLE_RUNTIMES.map((runtime) => `${runtime.label} (${runtime.runtime})`);
  const shown = SAMPLE_LANGUAGES.filter((language) => !SAMPLE_RUNTIMES.some((r) => r.label === language.label));
  return (
    "## Code samples\n\n" +
    `Every operation has a sample in ${SAMPLE_LANGUAGES.map((language) => language.label).join(", ")}, made from ` +
    "this contract with each language's standard HTTP library (Java reads JSON with Jackson, C# with Json.NET, as " +
    "their standard libraries have no JSON reader that runs everywhere), and every webhook a signature check in the " +
    "same languages (curl: a signed test delivery to your receiver). Each sample reads `PARTNER_API_KEY` and " +
    "`PARTNER_API_BASE_URL` from the environment.\n\n" +
    `Before each publication a test runs every sample exactly as shown, against a fresh sandbox account and against the mock, and checks that it sent the documented request and printed the documented answer: ${executed.join("; ")}.` +
    (shown.length > 0 ? ` Shown but not run: ${shown.map((language) => language.label).join(", ")}.` : "")
  );
}

function escapeHtmlText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * For a page of text and tables with nothing for Redoc's right panel (Errors, Changelog): the middle panel takes
 * the whole width beside the sidebar, rather than a column of 40 % less (450 px of text at 1400 px).
 */
const FULL_WIDTH_STYLE =
  '<style>[data-testid="middle-panel"]{width:100%!important;max-width:none!important}' +
  '[data-testid="right-panel"]{display:none!important}</style>';

interface RenderedPage {
  html: string;
  redoclyMs: number;
}

/** Renders one document with Redocly into a self-contained page; throws when the page would load from elsewhere. */
async function renderPage(
  document: Record<string, unknown>,
  redocOptions: Record<string, unknown>,
  work: string,
  name: string,
  nav = "",
  pageTitle?: string,
  layout: "panels" | "full-width" = "panels",
): Promise<RenderedPage> {
  const specPath = path.join(work, `${name.replace(/\W/g, "-")}.json`);
  const htmlPath = path.join(work, `${name.replace(/\W/g, "-")}.html`);
  await writeFile(specPath, JSON.stringify(withJoinedDescriptions(withPlainServerDescriptions(document))));
  const started = performance.now();
  const { code, output: log } = await run(
    process.execPath,
    [
      redoclyCliPath(),
      "build-docs",
      specPath,
      "--output",
      htmlPath,
      "--inlineBundle",
      "--template",
      templatePath,
      "--openapi",
      JSON.stringify(redocOptions),
      "--lint-config",
      "off",
    ],
    // Telemetry off: the CLI would report the build, and the page would send traces to Redocly.
    { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
  );
  const redoclyMs = performance.now() - started;
  if (code !== 0) throw new Error(`redocly build-docs exited with ${code} for ${name}.html:\n${log.trim()}`);

  let rendered = withNav(replaceRemoteAssets(await readFile(htmlPath, "utf8")), nav, `${name}.html`);
  if (layout === "full-width") rendered = rendered.replace("</head>", () => `${FULL_WIDTH_STYLE}\n</head>`);
  // The H1 may be short (withShortHeading); the browser's tab and bookmarks keep the page's full title.
  const html =
    pageTitle === undefined
      ? rendered
      : rendered.replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtmlText(pageTitle)}</title>`);
  const external = findExternalLoads(html);
  if (external.length > 0) {
    throw new Error(`${name}.html would load from other hosts: ${external.join(", ")}; it must be self-contained`);
  }
  if (!/"disableTelemetry":\s*true/.test(html)) throw new Error(`${name}.html does not turn Redoc's telemetry off`);
  if (!html.includes("Content-Security-Policy"))
    throw new Error(`${name}.html has no Content-Security-Policy: is ${rel(templatePath)} used?`);
  return { html, redoclyMs };
}

/**
 * Builds the reference into `outDir`: bundle, add samples and the getting-started section, render with
 * Redocly, make self-contained, check; then the dashboard's screenshots, the sandbox control page showing them,
 * and the reference's screenshots.
 */
export async function buildDocs(options: DocsBuildOptions = {}): Promise<DocsBuildResult> {
  const outDir = path.resolve(options.outDir ?? docsDir);
  const progress = options.onProgress ?? (() => {});

  const { written, output } = await ensureBundle();
  progress(written.length > 0 ? `bundled the contract (rewrote ${written.join(", ")})` : "bundle is up to date");
  // ensureBundle() has just made the sandbox bundle fresh too, when the sandbox contract exists.
  const sandboxJson = await readFile(sandboxBundleJsonPath, "utf8").catch(() => undefined);

  const { document: withSamples, operations } = addCodeSamples(output.document);
  const webhooks = Object.keys((withSamples.webhooks ?? {}) as object).length;
  progress(
    `added samples in ${SAMPLE_LANGUAGES.map((language) => language.label).join(", ")} to ${operations.length} operations and ${webhooks} webhooks`,
  );
  let document = addGettingStarted(withSamples);
  const info = document.info as Record<string, unknown>;
  document = { ...document, info: { ...info, description: `${info.description ?? ""}\n\n${samplesNote()}` } };
  progress("added the getting-started section (install, first call, sandbox, webhooks)");
  if (sandboxJson !== undefined) document = withSandboxLink(document);
  const workflows = workflowsSection(
    output.document,
    sandboxJson === undefined ? undefined : { document: JSON.parse(sandboxJson), page: SANDBOX_PAGE },
  );
  document = addWorkflows(document, workflows.markdown);
  progress(`added the Workflows section (${workflows.workflows} workflows, a diagram each)`);

  const work = await mkdtemp(path.join(os.tmpdir(), "partner-docs-"));
  try {
    const configured = await configuredRedocOptions();
    const redocOptions = {
      // Every component schema gets its own entry under "Schemas", not only where an operation uses it.
      schemaDefinitionsTagName: SCHEMAS_TAG,
      ...configured,
      codeSamples: { languages: CODE_SAMPLE_LANGUAGES },
      // The bundle sits beside the page, so partners can download exactly what it shows.
      downloadUrls: [
        { title: "OpenAPI (YAML)", url: "openapi.yaml" },
        { title: "OpenAPI (JSON)", url: "openapi.json" },
      ],
    };
    const title = String((output.document.info as { title?: unknown }).title);
    const version = String((output.document.info as { version?: unknown }).version);
    const released = await releasedContracts(repoRoot);
    // Each release once: the contract being published is the latest, so its own release copy is not listed again.
    const navVersions: NavVersion[] = [
      { label: `${version} (latest)`, file: REFERENCE_PAGE.file },
      ...released
        .filter((contract) => contract.version !== version)
        .map((contract) => ({ label: contract.version, file: versionPage(contract.version) })),
    ];
    const navPages: NavPage[] = [
      REFERENCE_PAGE,
      TRY_IT_PAGE,
      ERRORS_PAGE,
      CHANGELOG_PAGE,
      ...(sandboxJson === undefined ? [] : [{ file: SANDBOX_PAGE, title: SANDBOX_SECTION_TITLE }]),
    ];
    const nav = (file: string, inlineScript = true) => navHtml(file, navPages, navVersions, { inlineScript });
    const reference = await renderPage(
      withShortHeading(document, REFERENCE_PAGE.title),
      redocOptions,
      work,
      "index",
      nav(REFERENCE_PAGE.file),
      title,
    );
    progress(`rendered with Redocly build-docs in ${Math.round(reference.redoclyMs)} ms`);

    await mkdir(outDir, { recursive: true });
    const indexPath = path.join(outDir, "index.html");
    await writeFile(indexPath, reference.html);
    await writeFile(path.join(outDir, "openapi.yaml"), output.yaml);
    await writeFile(path.join(outDir, "openapi.json"), output.json);
    const files = ["index.html", "openapi.yaml", "openapi.json"];
    await mkdir(path.join(outDir, WORKFLOWS_FOLDER), { recursive: true });
    for (const { name, content } of workflows.files) await writeFile(path.join(outDir, name), content);
    progress(`wrote ${rel(outDir)}/${WORKFLOWS_FOLDER}/: the workflow documents and a diagram a workflow`);
    progress(`wrote ${rel(outDir)}/index.html, openapi.yaml and openapi.json`);

    let redoclyMs = reference.redoclyMs;
    const pageFiles: string[] = [];
    const plainOptions = { ...configured, hideDownloadButtons: true };
    const errors = await renderPage(
      withShortHeading(errorsDocument(output.document, `Errors: ${title}`), ERRORS_PAGE.title),
      plainOptions,
      work,
      "errors",
      nav(ERRORS_PAGE.file),
      `Errors: ${title}`,
      "full-width",
    );
    await writeFile(path.join(outDir, ERRORS_PAGE.file), errors.html);
    const changelogText = await readFile(path.join(repoRoot, "CHANGELOG.md"), "utf8");
    const changelog = await renderPage(
      withShortHeading(changelogDocument(changelogText, `Changelog: ${title}`, version), CHANGELOG_PAGE.title),
      plainOptions,
      work,
      "changelog",
      nav(CHANGELOG_PAGE.file),
      `Changelog: ${title}`,
      "full-width",
    );
    await writeFile(path.join(outDir, CHANGELOG_PAGE.file), changelog.html);
    redoclyMs += errors.redoclyMs + changelog.redoclyMs;
    pageFiles.push(ERRORS_PAGE.file, CHANGELOG_PAGE.file);
    progress(`wrote ${ERRORS_PAGE.file} and ${CHANGELOG_PAGE.file}`);
    for (const contract of released) {
      const releasedDocument = await readReleasedContract(contract);
      const file = versionPage(contract.version);
      const page = await renderPage(
        withShortHeading(
          releasedReferenceDocument(addGettingStarted(addCodeSamples(releasedDocument).document), contract.version),
          REFERENCE_PAGE.title,
        ),
        { ...redocOptions, downloadUrls: [{ title: "OpenAPI (JSON)", url: "openapi.json" }] },
        work,
        `version-${contract.version}`,
        nav(file),
        String((releasedDocument.info as { title?: unknown } | undefined)?.title ?? title),
      );
      await mkdir(path.join(outDir, path.dirname(file)), { recursive: true });
      await writeFile(path.join(outDir, file), page.html);
      await writeFile(
        path.join(outDir, path.dirname(file), "openapi.json"),
        `${JSON.stringify(releasedDocument, null, 2)}\n`,
      );
      redoclyMs += page.redoclyMs;
      pageFiles.push(file, `${path.dirname(file)}/openapi.json`);
    }
    progress(
      `wrote the reference of each release: ${released.map((contract) => contract.version).join(", ") || "none yet"}`,
    );
    pageFiles.push(...(await writeTryIt(outDir, nav(TRY_IT_PAGE.file, false), title)));
    progress(`wrote ${TRY_IT_PAGE.file} (Scalar's console, sending to a server the reader picks)`);
    const sandboxFiles: string[] = [];
    let dashboardScreenshots: string[] = [];
    if (sandboxJson !== undefined && options.screenshots !== false) {
      const shots = await takeDashboardScreenshots(outDir);
      if (shots.skipped) progress(`dashboard screenshots skipped: ${shots.skipped}`);
      else progress(`wrote dashboard screenshots ${shots.taken.map((file) => path.basename(file)).join(", ")}`);
      dashboardScreenshots = shots.taken;
    }
    if (sandboxJson !== undefined) {
      const sandboxPage = await renderPage(
        asSandboxPage(
          JSON.parse(sandboxJson),
          dashboardScreenshots.map((file) => path.basename(file)),
        ),
        {
          schemaDefinitionsTagName: SCHEMAS_TAG,
          ...configured,
          downloadUrls: [
            { title: "OpenAPI (YAML)", url: "sandbox.yaml" },
            { title: "OpenAPI (JSON)", url: "sandbox.json" },
          ],
        },
        work,
        "sandbox",
        nav(SANDBOX_PAGE),
      );
      redoclyMs += sandboxPage.redoclyMs;
      await writeFile(path.join(outDir, SANDBOX_PAGE), sandboxPage.html);
      await writeFile(path.join(outDir, "sandbox.yaml"), await readFile(sandboxBundleYamlPath, "utf8"));
      await writeFile(path.join(outDir, "sandbox.json"), sandboxJson);
      sandboxFiles.push(SANDBOX_PAGE, "sandbox.yaml", "sandbox.json");
      progress(
        `wrote ${rel(outDir)}/${SANDBOX_PAGE} (${SANDBOX_SECTION_TITLE}) in ${Math.round(sandboxPage.redoclyMs)} ms`,
      );
    } else {
      progress(`no ${rel(sandboxBundleJsonPath)}: no ${SANDBOX_SECTION_TITLE} page`);
    }

    let screenshots: string[] = [];
    if (options.screenshots !== false) {
      const shots = await takeScreenshots(indexPath, REFERENCE_PAGE.title);
      if (shots.skipped) progress(`screenshots skipped: ${shots.skipped}`);
      else progress(`wrote screenshots ${shots.taken.map((file) => rel(file)).join(" and ")}`);
      screenshots = shots.taken;
    }

    return {
      outDir,
      indexPath,
      files,
      pageFiles,
      versions: navVersions.slice(1).map((entry) => entry.label),
      workflowFiles: workflows.files.map(({ name }) => name),
      sandboxFiles,
      screenshots,
      dashboardScreenshots,
      indexBytes: Buffer.byteLength(reference.html),
      operations: operations.length,
      webhooks,
      samples: (operations.length + webhooks) * SAMPLE_LANGUAGES.length,
      bundleWritten: written,
      redoclyMs,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
