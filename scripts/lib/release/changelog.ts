/**
 * The changelog entry of a release, in partners' words: per operation and webhook, what changed and what the
 * partner must do about it, the most pressing first, in partners' words (partner-words.ts); the gate's check id and
 * location in a comment under each, for the API team (the rendered page does not show it). Made from the gate's report (scripts/lib/diff/report.ts), so it lists what the gate saw.
 */

import { HTTP_METHODS } from "partner-api-client";
import { isObject, type JsonObject } from "partner-api-devkit/cli";
import type { Change } from "../diff/changes.ts";
import type { DiffReport } from "../diff/report.ts";
import { partnerSentence } from "./partner-words.ts";

/** What a partner must do about a change, by how it reaches them. */
export type Action = "must" | "check" | "none" | "documentation";

export const ACTION_TITLES: Record<Action, string> = {
  must: "Action needed",
  check: "Check your code",
  none: "No action needed",
  documentation: "Documentation",
};

/** The action a change asks of partners: a breaking change (error) needs one, a warning a look, the rest nothing. */
export function actionFor(change: Change): Action {
  if (change.level === "error") return "must";
  if (change.level === "warning") return "check";
  return change.documentation ? "documentation" : "none";
}

/** The sentence after what changed: whether and where in the partner's code to act. */
export function whatToDo(change: Change, webhook: boolean): string {
  const action = actionFor(change);
  if (action === "must") {
    if (webhook) return "Update your webhook receiver before you upgrade: the deliveries it reads change.";
    if (change.flow === "toService")
      return "Update the requests your code sends before you upgrade: the old ones are refused.";
    if (change.flow === "toPartner") return "Update the code that reads the answer before you upgrade.";
    return "Update every call of it before you upgrade.";
  }
  if (action === "check") {
    if (change.check === "operation-id-changed")
      return "If your code names it (`isApiError(error, id)`), use the new name.";
    return "Check the code that relies on it.";
  }
  if (action === "none")
    return /added|-widened$|reactivated/.test(change.kind) && change.flow === "toService"
      ? "Nothing to do; use it when you need it."
      : "Nothing to do.";
  return "Nothing to do: nothing changes in what is sent.";
}

/** `GET /v1/cards` → `listCards`, from both contracts (a removed operation is named by the old one). */
export function operationNames(...documents: Record<string, unknown>[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const document of documents) {
    const paths = isObject(document.paths) ? (document.paths as JsonObject) : {};
    for (const [pathName, item] of Object.entries(paths)) {
      for (const method of HTTP_METHODS) {
        const operation = isObject(item) ? item[method] : undefined;
        if (isObject(operation) && typeof operation.operationId === "string")
          names.set(`${method.toUpperCase()} ${pathName}`, operation.operationId);
      }
    }
  }
  return names;
}

const WHOLE_API = "The whole API";

/** The operations and webhooks a change reaches: those it lists, else the one its location starts with. */
function targetsOf(change: Change): string[] {
  // A webhook is named `webhook <name> POST` by the gate; one section per webhook.
  const webhookName = (text: string) => /^webhook ([\w.]+)/.exec(text)?.[1];
  if (change.usedBy.length > 0)
    return [...new Set(change.usedBy.map((user) => (webhookName(user) ? `webhook ${webhookName(user)}` : user)))];
  const operation = /^([A-Z]+ \/\S*)/.exec(change.location)?.[1];
  if (operation && HTTP_METHODS.includes(operation.split(" ")[0]!.toLowerCase() as never)) return [operation];
  const webhook = /^(?:webhook |#\/webhooks\/)([\w.]+)/.exec(change.location)?.[1];
  return webhook ? [`webhook ${webhook}`] : [WHOLE_API];
}

const ORDER: Action[] = ["must", "check", "none", "documentation"];

function heading(target: string, names: ReadonlyMap<string, string>): string {
  if (target === WHOLE_API) return WHOLE_API;
  if (target.startsWith("webhook ")) return `Webhook \`${target.slice("webhook ".length)}\``;
  const name = names.get(target);
  return name ? `\`${name}\` (${target})` : target;
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/**
 * One summary, never contradicting the entries: what needs action first, then what to check, then the rest; a
 * release with nothing to act on or check says "Nothing to do".
 */
export function summaryLine(counts: readonly (readonly [Action, number])[], version: string): string {
  const of = (action: Action) => counts.find(([entry]) => entry === action)?.[1] ?? 0;
  const [must, check] = [of("must"), of("check")];
  const quiet = of("none") + of("documentation");
  const rest = quiet > 0 ? `; ${plural(quiet, "change needs", "changes need")} nothing` : "";
  if (must > 0)
    return `**${plural(must, "change needs", "changes need")} action** before you upgrade to ${version}${check > 0 ? `; ${plural(check, "change", "changes")} to check` : ""}${rest}.`;
  if (check > 0)
    return `No change needs action before you upgrade to ${version}, but **${plural(check, "change", "changes")} to check**${rest}.`;
  return `Nothing to do before you upgrade to ${version}: ${plural(quiet, "change needs", "changes need")} nothing.`;
}

/**
 * The Markdown entry: `## <version> (<date>)`, a summary line, then one `###` section per operation or webhook
 * (those needing action first), each change as "**<action>:** <what changed>. <what to do>" with a detail line.
 */
export function partnerChangelog(
  report: DiffReport,
  version: string,
  date: string,
  names: ReadonlyMap<string, string>,
): string {
  const lines = [`## ${version} (${date})`, ""];
  const counts = ORDER.map((action) => [action, report.changes.filter((c) => actionFor(c) === action).length] as const);
  if (report.changes.length === 0) {
    lines.push("No changes to the API contract: nothing to do.", "");
    return lines.join("\n");
  }
  lines.push(summaryLine(counts, version), "");
  const byTarget = new Map<string, Change[]>();
  for (const change of report.changes)
    for (const target of targetsOf(change)) byTarget.set(target, [...(byTarget.get(target) ?? []), change]);
  const rank = (changes: Change[]) => Math.min(...changes.map((change) => ORDER.indexOf(actionFor(change))));
  const targets = [...byTarget].sort(
    ([a, x], [b, y]) => rank(x) - rank(y) || Number(a === WHOLE_API) - Number(b === WHOLE_API) || a.localeCompare(b),
  );
  for (const [target, changes] of targets) {
    lines.push(`### ${heading(target, names)}`, "");
    const sorted = [...changes].sort((a, b) => ORDER.indexOf(actionFor(a)) - ORDER.indexOf(actionFor(b)));
    for (const change of sorted) {
      const acknowledged = change.acknowledged ? ` Why: ${change.acknowledged}` : "";
      // The gate's check and location are for the API team: kept in the source, hidden from partners' view.
      lines.push(
        `- **${ACTION_TITLES[actionFor(change)]}:** ${partnerSentence(change)}. ${whatToDo(change, target.startsWith("webhook "))}${acknowledged}`,
        `  <!-- ${change.check} at ${change.location.replace(/--/g, "- -")} -->`,
      );
    }
    lines.push("");
  }
  return lines.join("\n");
}
