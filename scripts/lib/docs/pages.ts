/**
 * The published docs' pages beyond the reference, and what ties them together: a bar on every page linking the
 * reference, Try it, Errors, Changelog and Sandbox control, with a version switcher over the released contracts
 * (release/versions/, each release's reference built offline from its own contract under versions/<x.y.z>/).
 * The Changelog and Errors pages are rendered by Redoc like the reference (a document with no paths whose
 * description is the page); Try it is Scalar's API reference (try-it.ts).
 */

/** One entry of the bar; `file` is relative to the docs folder. */
export interface NavPage {
  file: string;
  title: string;
}

export const CHANGELOG_PAGE: NavPage = { file: "changelog.html", title: "Changelog" };
export const ERRORS_PAGE: NavPage = { file: "errors.html", title: "Errors" };
export const TRY_IT_PAGE: NavPage = { file: "try.html", title: "Try it" };
export const REFERENCE_PAGE: NavPage = { file: "index.html", title: "Reference" };

/** Where a released version's reference goes: `versions/<version>/index.html`. */
export function versionPage(version: string): string {
  return `versions/${version}/index.html`;
}

/** The marker in template.hbs the bar replaces. */
export const NAV_MARKER = "<!--docs-nav-->";

export interface NavVersion {
  /** What the switcher shows. */
  label: string;
  /** The page it opens, relative to the docs folder. */
  file: string;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * The bar for the page `current` (a file relative to the docs folder): links to `pages` and a `<select>` over
 * `versions` whose change opens the chosen version. Links are relative, so the folder works from any host or from
 * disk. The script is inline (the pages' Content-Security-Policy allows their own inline scripts only).
 */
export function navHtml(
  current: string,
  pages: readonly NavPage[],
  versions: readonly NavVersion[],
  options: { inlineScript?: boolean } = {},
): string {
  const depth = current.split("/").length - 1;
  const up = "../".repeat(depth);
  const links = pages
    .map(
      (page) =>
        `<a href="${escapeHtml(up + page.file)}"${page.file === current ? ' aria-current="page"' : ""}>${escapeHtml(page.title)}</a>`,
    )
    .join("");
  const choices = versions
    .map(
      (version) =>
        `<option value="${escapeHtml(up + version.file)}"${version.file === current ? " selected" : ""}>${escapeHtml(version.label)}</option>`,
    )
    .join("");
  return `<nav class="docs-nav" aria-label="Documentation">${links}<label class="docs-version">Version <select id="docs-version" aria-label="Reference version">${choices}</select></label></nav>
<style>
.docs-nav{display:flex;flex-wrap:wrap;align-items:center;gap:4px 18px;padding:8px 20px;font:14px/1.4 system-ui,sans-serif;border-bottom:1px solid #e3e6ea;background:#f7f8fa}
.docs-nav a{color:#0044d4;text-decoration:none}.docs-nav a[aria-current]{font-weight:600;color:#111}
.docs-version{margin-left:auto;color:#444}.docs-version select{margin-left:6px;font:inherit}
@media (prefers-color-scheme: dark){.docs-nav{background:#1b1d21;border-color:#333}.docs-nav a{color:#8ab4ff}.docs-nav a[aria-current],.docs-version{color:#eee}}
</style>${options.inlineScript === false ? "" : `\n<script>${VERSION_SWITCH_SCRIPT}</script>`}`;
}

/** Opens the version the switcher names; inline on Redoc's pages, in try.js on Try it (its policy allows no inline script). */
export const VERSION_SWITCH_SCRIPT =
  'document.getElementById("docs-version").addEventListener("change",function(e){location.href=e.target.value;});';

/** The page with the bar in place of the template's marker; throws when the template lost the marker. */
export function withNav(html: string, nav: string, name: string): string {
  if (!html.includes(NAV_MARKER)) throw new Error(`${name}: the page has no ${NAV_MARKER} for the docs bar`);
  return html.replace(NAV_MARKER, nav);
}

/**
 * A page's document with a short heading: Redoc makes `info.title` the page's H1 (and the first entry of the
 * sidebar), and the API's full title is seven lines of it at a phone's width. The H1 becomes `heading` (the page's
 * name in the bar), and the full title opens the description, under it. The HTML `<title>` keeps the full title
 * (renderPage).
 */
export function withShortHeading(document: Record<string, unknown>, heading: string): Record<string, unknown> {
  const info = (document.info ?? {}) as Record<string, unknown>;
  const title = String(info.title ?? "");
  if (title === heading) return document;
  const description = typeof info.description === "string" ? info.description : "";
  // Redoc shows `summary` above the description: it follows the full title, so the title comes right under the H1.
  const { summary, ...rest } = info;
  const lead = [`**${title}**`, typeof summary === "string" ? summary : "", description].filter(Boolean);
  return { ...document, info: { ...rest, title: heading, description: lead.join("\n\n").trim() } };
}

/** The changelog as a Redoc page: CHANGELOG.md without its title as the description, one sidebar entry per release. */
export function changelogDocument(markdown: string, title: string, version: string): Record<string, unknown> {
  // Redoc's sidebar drops a heading's code spans ("### Webhook `company.kyc_status_changed`" showed as "Webhook"):
  // headings lose their backticks, so the sidebar names each event and operation.
  const body = markdown
    .replace(/^# Changelog\s*\n/, "")
    .replace(/^(#{2,6} .*)$/gm, (heading) => heading.replaceAll("`", ""))
    .trim();
  const intro =
    "What changed in each release of the API, newest first, and what you must do about it. Each release's " +
    "reference is under **Version** above. The detail line under a change names the contract gate's check.";
  return {
    openapi: "3.1.0",
    info: { title, version, description: `${intro}\n\n${body}\n` },
    paths: {},
  };
}

/** A released contract for its own page: says which release it is when its `info.version` says otherwise. */
export function releasedReferenceDocument(document: Record<string, unknown>, version: string): Record<string, unknown> {
  const info = (document.info ?? {}) as Record<string, unknown>;
  const stated = String(info.version ?? "");
  const note =
    stated === version
      ? `This is the reference of release ${version}.`
      : `This is the reference of release ${version}. Its contract states version ${stated}: it was released before the package and the contract shared one version number.`;
  return { ...document, info: { ...info, description: `> ${note}\n\n${info.description ?? ""}` } };
}
