/**
 * `npm run docs`: the rendered reference, built from the bundled contract with Redocly's
 * `build-docs` into one self-contained page (dist/docs/index.html) plus the contract beside it; then the
 * site around it, one step each: the Errors and Changelog pages, each release's reference, the Try it console,
 * the dashboard's screenshots and the sandbox control page, and the reference's screenshots.
 *
 * Self-contained means: Redoc's script is inlined from the installed @redocly/cli (`--inlineBundle`),
 * the page carries a Content-Security-Policy that forbids loading from any other host, Redocly's
 * telemetry is off, and the two images Redoc would fetch from its CDN (the attribution logo) are
 * replaced by a local wordmark. The build fails when the output still names an asset CDN (render-page.ts).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
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
  withShortHeading,
} from "./pages.ts";
import { renderPage } from "./render-page.ts";
import { SAMPLE_RUNTIMES } from "./sample-runtimes.ts";
import { addCodeSamples, CODE_SAMPLE_LANGUAGES, SAMPLE_LANGUAGES } from "./samples.ts";
import { takeScreenshots } from "./screenshots.ts";
import { writeTryIt } from "./try-it.ts";
import { addWorkflows, WORKFLOWS_FOLDER, workflowsSection } from "./workflows.ts";

export {
  ASSET_REPLACEMENTS,
  FORBIDDEN_ASSET_HOSTS,
  findExternalLoads,
  redoclyCliPath,
  replaceRemoteAssets,
  templatePath,
  withPlainServerDescriptions,
} from "./render-page.ts";

/** The sidebar section that lists every component schema. */
export const SCHEMAS_TAG = "Schemas";

export const docsDir = path.join(repoRoot, "dist", "docs");
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

/** What every page of one build shares: where it goes, Redocly's scratch folder, the options and the navigation. */
interface Site {
  outDir: string;
  work: string;
  progress: (message: string) => void;
  /** Redoc options from redocly.yaml. */
  configured: Record<string, unknown>;
  /** The reference's Redoc options: the configured ones, the Schemas section, samples and download links. */
  redocOptions: Record<string, unknown>;
  title: string;
  version: string;
  nav: (file: string, inlineScript?: boolean) => string;
}

/** What a step wrote (paths relative to `outDir`) and how long Redocly took for it. */
interface Written {
  files: string[];
  redoclyMs: number;
}

/** The reference's document: the bundle with code samples, the getting-started section and the workflows. */
function referenceDocument(
  bundled: Record<string, unknown>,
  sandboxJson: string | undefined,
  progress: Site["progress"],
) {
  const { document: withSamples, operations } = addCodeSamples(bundled);
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
    bundled,
    sandboxJson === undefined ? undefined : { document: JSON.parse(sandboxJson), page: SANDBOX_PAGE },
  );
  document = addWorkflows(document, workflows.markdown);
  progress(`added the Workflows section (${workflows.workflows} workflows, a diagram each)`);
  return { document, operations: operations.length, webhooks, workflows };
}

/** The site's shared settings: Redoc options, title and version, and the navigation (pages, then releases). */
async function siteOf(
  bundled: Record<string, unknown>,
  hasSandbox: boolean,
  outDir: string,
  work: string,
  progress: Site["progress"],
) {
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
  const title = String((bundled.info as { title?: unknown }).title);
  const version = String((bundled.info as { version?: unknown }).version);
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
    ...(hasSandbox ? [{ file: SANDBOX_PAGE, title: SANDBOX_SECTION_TITLE }] : []),
  ];
  const nav = (file: string, inlineScript = true) => navHtml(file, navPages, navVersions, { inlineScript });
  const site: Site = { outDir, work, progress, configured, redocOptions, title, version, nav };
  return { site, released, navVersions };
}

/** The Errors and Changelog pages: text and tables, full width. */
async function writeErrorsAndChangelog(site: Site, bundled: Record<string, unknown>): Promise<Written> {
  const { outDir, work, configured, title, version, nav, progress } = site;
  const plainOptions = { ...configured, hideDownloadButtons: true };
  const errors = await renderPage(
    withShortHeading(errorsDocument(bundled, `Errors: ${title}`), ERRORS_PAGE.title),
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
  progress(`wrote ${ERRORS_PAGE.file} and ${CHANGELOG_PAGE.file}`);
  return { files: [ERRORS_PAGE.file, CHANGELOG_PAGE.file], redoclyMs: errors.redoclyMs + changelog.redoclyMs };
}

/** The reference of each released contract, with its contract beside it. */
async function writeReleases(site: Site, released: Awaited<ReturnType<typeof releasedContracts>>): Promise<Written> {
  const { outDir, work, redocOptions, title, nav, progress } = site;
  const written: Written = { files: [], redoclyMs: 0 };
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
    written.redoclyMs += page.redoclyMs;
    written.files.push(file, `${path.dirname(file)}/openapi.json`);
  }
  progress(
    `wrote the reference of each release: ${released.map((contract) => contract.version).join(", ") || "none yet"}`,
  );
  return written;
}

/** The sandbox control API's page, opening with the dashboard's screenshots, and its contract beside it. */
async function writeSandboxPage(site: Site, sandboxJson: string, dashboardScreenshots: string[]): Promise<Written> {
  const { outDir, work, configured, nav, progress } = site;
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
  await writeFile(path.join(outDir, SANDBOX_PAGE), sandboxPage.html);
  await writeFile(path.join(outDir, "sandbox.yaml"), await readFile(sandboxBundleYamlPath, "utf8"));
  await writeFile(path.join(outDir, "sandbox.json"), sandboxJson);
  progress(
    `wrote ${rel(outDir)}/${SANDBOX_PAGE} (${SANDBOX_SECTION_TITLE}) in ${Math.round(sandboxPage.redoclyMs)} ms`,
  );
  return { files: [SANDBOX_PAGE, "sandbox.yaml", "sandbox.json"], redoclyMs: sandboxPage.redoclyMs };
}

/** Screenshots of one kind, or none when turned off; says which it wrote or why it skipped them. */
async function screenshotsOf(
  take: () => Promise<{ taken: string[]; skipped?: string }>,
  what: string,
  list: (taken: string[]) => string,
  progress: Site["progress"],
): Promise<string[]> {
  const shots = await take();
  if (shots.skipped) progress(`${what} skipped: ${shots.skipped}`);
  else progress(`wrote ${what} ${list(shots.taken)}`);
  return shots.taken;
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
  const reference = referenceDocument(output.document, sandboxJson, progress);

  const work = await mkdtemp(path.join(os.tmpdir(), "partner-docs-"));
  try {
    const { site, released, navVersions } = await siteOf(
      output.document,
      sandboxJson !== undefined,
      outDir,
      work,
      progress,
    );
    const index = await renderPage(
      withShortHeading(reference.document, REFERENCE_PAGE.title),
      site.redocOptions,
      work,
      "index",
      site.nav(REFERENCE_PAGE.file),
      site.title,
    );
    progress(`rendered with Redocly build-docs in ${Math.round(index.redoclyMs)} ms`);

    await mkdir(outDir, { recursive: true });
    const indexPath = path.join(outDir, "index.html");
    await writeFile(indexPath, index.html);
    await writeFile(path.join(outDir, "openapi.yaml"), output.yaml);
    await writeFile(path.join(outDir, "openapi.json"), output.json);
    const files = ["index.html", "openapi.yaml", "openapi.json"];
    await mkdir(path.join(outDir, WORKFLOWS_FOLDER), { recursive: true });
    for (const { name, content } of reference.workflows.files) await writeFile(path.join(outDir, name), content);
    progress(`wrote ${rel(outDir)}/${WORKFLOWS_FOLDER}/: the workflow documents and a diagram a workflow`);
    progress(`wrote ${rel(outDir)}/index.html, openapi.yaml and openapi.json`);

    const pages = await writeErrorsAndChangelog(site, output.document);
    const releases = await writeReleases(site, released);
    const pageFiles = [...pages.files, ...releases.files];
    pageFiles.push(...(await writeTryIt(outDir, site.nav(TRY_IT_PAGE.file, false), site.title)));
    progress(`wrote ${TRY_IT_PAGE.file} (Scalar's console, sending to a server the reader picks)`);
    const shoot = options.screenshots !== false;
    const dashboardScreenshots =
      sandboxJson !== undefined && shoot
        ? await screenshotsOf(
            () => takeDashboardScreenshots(outDir),
            "dashboard screenshots",
            (taken) => taken.map((file) => path.basename(file)).join(", "),
            progress,
          )
        : [];
    const sandbox: Written =
      sandboxJson !== undefined
        ? await writeSandboxPage(site, sandboxJson, dashboardScreenshots)
        : { files: [], redoclyMs: 0 };
    if (sandboxJson === undefined) progress(`no ${rel(sandboxBundleJsonPath)}: no ${SANDBOX_SECTION_TITLE} page`);
    const screenshots = shoot
      ? await screenshotsOf(
          () => takeScreenshots(indexPath, REFERENCE_PAGE.title),
          "screenshots",
          (taken) => taken.map((file) => rel(file)).join(" and "),
          progress,
        )
      : [];

    return {
      outDir,
      indexPath,
      files,
      pageFiles,
      versions: navVersions.slice(1).map((entry) => entry.label),
      workflowFiles: reference.workflows.files.map(({ name }) => name),
      sandboxFiles: sandbox.files,
      screenshots,
      dashboardScreenshots,
      indexBytes: Buffer.byteLength(index.html),
      operations: reference.operations,
      webhooks: reference.webhooks,
      samples: (reference.operations + reference.webhooks) * SAMPLE_LANGUAGES.length,
      bundleWritten: written,
      redoclyMs: index.redoclyMs + pages.redoclyMs + releases.redoclyMs + sandbox.redoclyMs,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
