/**
 * The "Getting started" section of the rendered reference (install, first call, sandbox, webhooks).
 * It is Markdown kept beside the docs build (getting-started.md), put at the top of the in-memory
 * copy's `info.description` at build time so Redoc renders it first and lists it in the sidebar; the
 * contract itself is not changed. Its TypeScript blocks are type-checked
 * with the partners' guide's (snippets.ts). Its install steps are the partners' guide's quick start's, read from
 * docs/partners.md by install-steps.ts (the one reader of them), so the two never say different things.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isObject } from "partner-api-devkit/cli";
import { partnerInstallSteps } from "./install-steps.ts";

export const gettingStartedPath = path.join(path.dirname(fileURLToPath(import.meta.url)), "getting-started.md");

/** The section's own heading; the test and the browser check look for it. */
export const GETTING_STARTED_HEADING = "Getting started";

/** Where getting-started.md takes the partners' guide's install steps. */
export const INSTALL_PLACEHOLDER = "<!-- install: the partners' guide's, docs/partners.md -->";

/** The section as rendered: getting-started.md with the partners' guide's install steps in place. */
export function readGettingStarted(guide?: string): string {
  const markdown = readFileSync(gettingStartedPath, "utf8");
  if (!markdown.includes(INSTALL_PLACEHOLDER))
    throw new Error(`${path.basename(gettingStartedPath)} must hold the line ${INSTALL_PLACEHOLDER} under ### Install`);
  return markdown.replace(INSTALL_PLACEHOLDER, () => partnerInstallSteps(guide).markdown);
}

/** A copy of the document whose `info.description` starts with the getting-started section. */
export function addGettingStarted(
  document: Record<string, unknown>,
  markdown: string = readGettingStarted(),
): Record<string, unknown> {
  if (!markdown.startsWith(`## ${GETTING_STARTED_HEADING}\n`))
    throw new Error(`${path.basename(gettingStartedPath)} must start with "## ${GETTING_STARTED_HEADING}"`);
  const info = isObject(document.info) ? document.info : {};
  const description = typeof info.description === "string" ? info.description : "";
  return { ...document, info: { ...info, description: `${markdown.trim()}\n\n${description}`.trim() } };
}
