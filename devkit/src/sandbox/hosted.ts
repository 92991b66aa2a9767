/**
 * The sandbox's stand-ins for the unbranded verification (KYC), terms and completion pages the service hosts
 * for a company's customer: plain HTML forms a tester (or a test, by POSTing the form) uses to move
 * verification on, and the page the customer lands on when the company was onboarded without `redirectUri`.
 * The pages run no script: their Content-Security-Policy allows only their own style and posting their own
 * form, and a link is only ever an http(s) address (a `javascript:` redirectUri, from a state file of before
 * the check, is shown as text).
 */
import type { components } from "../../generated/sandbox.js";
import { sha256Base64 } from "../bytes.ts";
import type { CompanyRecord } from "./records.ts";

const STYLE =
  "body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}button{margin:.25rem}";

/** What a hosted page may do: show its own style, post its own form. No script, no other resource, no <base>. */
export const HOSTED_PAGE_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${sha256Base64(STYLE)}'`,
  "form-action 'self'",
  "base-uri 'none'",
].join("; ");

/** Whether a link to `url` is one a page may render: http(s) only, never `javascript:`, `data:` or the like. */
export function isWebAddress(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${STYLE}</style>
</head><body>
<p><small>Partner API sandbox: this page stands in for the service's hosted page.</small></p>
${body}
</body></html>
`;
}

/**
 * What each button of the verification page does: its `action` (the value the form, and POSTing it, takes) and
 * the `kycStatus` it sets. A button reads `start → incomplete`: the values the API takes, no other words.
 */
export const KYC_ACTIONS = {
  start: "incomplete",
  submit: "under_review",
  complete: "approved",
  reject: "rejected",
  pause: "paused",
} as const satisfies Record<components["schemas"]["KycPageForm"]["action"], components["schemas"]["KycStatus"]>;

/** The verification page; once approved it links on to `continueUrl` (the redirectUri, or the completion page). */
export function renderKycPage(record: CompanyRecord, continueUrl: string): string {
  const { company } = record;
  const done =
    company.swap?.kycStatus !== "approved"
      ? ""
      : isWebAddress(continueUrl)
        ? `<p><a id="continue" href="${escapeHtml(continueUrl)}">Continue</a></p>`
        : `<p id="continue-refused">Verification is complete; the company's redirectUri is not an http(s) address, so this page does not link to it.</p>`;
  const buttons = Object.entries(KYC_ACTIONS)
    .map(([action, status]) => `<button name="action" value="${action}">${action} → ${status}</button>`)
    .join("\n");
  return page(
    `Verify ${company.name}`,
    `<h1>Identity verification for ${escapeHtml(company.name ?? "")}</h1>
<p>Status: <strong id="kyc-status">${escapeHtml(company.swap?.kycStatus ?? "")}</strong></p>
<form method="post">
${buttons}
</form>
${done}`,
  );
}

export function renderTosPage(record: CompanyRecord): string {
  const { company } = record;
  const accepted = company.swap?.tosAccepted === true;
  return page(
    `Terms for ${company.name}`,
    `<h1>Terms of service for ${escapeHtml(company.name ?? "")}</h1>
<p>Accepted: <strong id="tos-accepted">${accepted ? "yes" : "no"}</strong></p>
<form method="post"><button name="accept" value="yes"${accepted ? " disabled" : ""}>Accept the terms</button></form>`,
  );
}

/** Where verification ends when the company gave no redirectUri. */
export function renderCompletionPage(record: CompanyRecord): string {
  const { company } = record;
  const status = company.swap?.kycStatus ?? "";
  const message =
    status === "approved"
      ? "Verification is complete. You can close this page."
      : `Verification is not complete yet (status ${escapeHtml(status)}).`;
  return page(
    `${company.name}: verification`,
    `<h1>Identity verification for ${escapeHtml(company.name ?? "")}</h1>
<p id="completion">${message}</p>`,
  );
}
