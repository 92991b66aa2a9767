/**
 * One page of the reference, rendered: a document through Redocly's `build-docs` (the installed CLI, Redoc's script
 * inlined) into a self-contained page with the site's navigation, its remote assets swapped for local ones, and
 * checked: nothing loaded from another host, Redoc's telemetry off, the template's Content-Security-Policy in place.
 */
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { rel, repoRoot } from "../paths.ts";
import { withNav } from "./pages.ts";
import { withJoinedDescriptions } from "./soft-breaks.ts";

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
        `Redoc no longer references ${remote}; check the page for new remote assets and update ASSET_REPLACEMENTS in scripts/lib/docs/render-page.ts`,
      );
    }
  }
  for (const { remote, local } of ASSET_REPLACEMENTS) result = result.split(remote).join(local);
  return result;
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

export interface RenderedPage {
  html: string;
  redoclyMs: number;
}

/** Renders one document with Redocly into a self-contained page; throws when the page would load from elsewhere. */
export async function renderPage(
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
