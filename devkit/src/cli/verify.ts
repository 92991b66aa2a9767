/**
 * `partner-api verify` (and `npm run verify` in this repository): checks a running implementation of the
 * partner API (the real service, its staging sandbox, the local sandbox, Prism) against the contract. The work
 * is devkit/src/conformance/verify.ts and verify/; this is its options, its report and its exit code.
 */
import { constants } from "node:fs";
import { access, chmod, writeFile } from "node:fs/promises";
import path from "node:path";
import { formatDuration, parseDuration } from "../common/duration.ts";
import { CHECK_IDS, CHECKS, GENERIC_STATUSES } from "../conformance/checks.ts";
import { PHASE_IDS, PHASES, type PhaseId } from "../conformance/coverage.ts";
import { KEY_VARIABLES, RunStopped } from "../conformance/http.ts";
import { describeVerdict, passed, REPORT_FORMATS, type ReportFormat, renderReport } from "../conformance/report.ts";
import {
  DEFAULT_MAX_DURATION_MS,
  DEFAULT_MAX_REQUESTS,
  DEFAULT_WEBHOOK_WAIT_MS,
  defaultChecks,
  idNames,
  type VerifyOptions,
  verify,
} from "../conformance/verify.ts";
import {
  type CommandContext,
  defineCommand,
  describeValue,
  JobFailure,
  optionOrEnv,
  parseHost,
  parseInteger,
  UsageError,
} from "./runner.ts";

/** The longest --max-duration: a day. */
const MAX_DURATION_MS = 24 * 3600_000;

function parseMaxDuration(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_DURATION_MS;
  const ms = parseDuration(value);
  if (ms === undefined || ms < 1000 || ms > MAX_DURATION_MS)
    throw new UsageError(
      `--max-duration must be a duration from 1s to 24h (90s, 30m, 1h30m, or plain seconds), got ${describeValue(value)}`,
    );
  return ms;
}

/** A ULID as the contract takes it: the ULID standard reads either letter case. */
const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/i;
const MAX_ID_LENGTH = 200;
/** The --id names: the values of the contract's path parameters. */
const ID_NAMES = idNames();

export interface VerifyCommandOptions {
  /** How the user invokes it: `partner-api verify` or `npm run verify --`. */
  name: string;
}

/**
 * --list-checks: every check with its level, what it judges, what the contract or the API description requires of
 * it and what the source leaves open (which it never fails), and the generic statuses.
 */
export function listChecks(): string {
  const width = Math.max(...CHECKS.map((check) => check.id.length));
  const indent = " ".repeat(width + 11);
  const lines = CHECKS.map(
    (check) =>
      `${check.id.padEnd(width)}  ${check.level.padEnd(7)}  ${check.summary}\n${indent}judges: ${check.judges}\n${indent}requires: ${check.requires}\n${indent}left open: ${check.leavesOpen}`,
  );
  const generic = [...GENERIC_STATUSES].map(([status, why]) => `${status} (${why})`).join(", ");
  const phaseWidth = Math.max(...PHASES.map((phase) => phase.id.length));
  const phases = PHASES.map((phase) => `${phase.id.padEnd(phaseWidth)}  ${phase.summary}`).join("\n");
  return `${lines.join("\n")}\n\nerror fails the run (exit 1); warning is reported only. max_response_time is on only with --max-response-time.\nGeneric statuses, allowed on any operation since the API description leaves them open: ${generic}.\n\nPhases (--phases; all by default; coverage builds on the objects examples finds):\n${phases}\n`;
}

function parseList(value: string | undefined, option: string): string[] | undefined {
  if (value === undefined) return undefined;
  const ids = value
    .split(",")
    .map((id) => id.trim())
    .filter(Boolean);
  const unknown = ids.filter((id) => !CHECK_IDS.includes(id));
  if (unknown.length > 0)
    throw new UsageError(
      `${option}: unknown check ${unknown.map(describeValue).join(", ")}; known: ${CHECK_IDS.join(", ")} (--list-checks)`,
    );
  if (ids.length === 0) throw new UsageError(`${option} needs at least one check id (--list-checks)`);
  return ids;
}

/** --phases: known names only; coverage varies requests on the objects the examples phase finds, so it needs it. */
export function parsePhases(value: string | undefined): Set<PhaseId> | undefined {
  if (value === undefined) return undefined;
  const names = value
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(PHASE_IDS as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new UsageError(
      `--phases: unknown phase ${unknown.map(describeValue).join(", ")}; known: ${PHASE_IDS.join(", ")} (--list-checks)`,
    );
  if (names.length === 0) throw new UsageError(`--phases needs at least one of ${PHASE_IDS.join(", ")}`);
  const phases = new Set(names as PhaseId[]);
  if (!phases.has("examples"))
    throw new UsageError(
      "--phases: coverage needs examples too (it varies requests on the objects the examples phase finds): --phases examples,coverage",
    );
  return phases;
}

function parseBaseUrl(value: string | undefined, name: string): string {
  if (value === undefined || value === "")
    throw new UsageError(
      `--base-url is required (or ${"PARTNER_API_BASE_URL"}): the implementation to verify, e.g. http://127.0.0.1:4020`,
    );
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${name} must be an http: or https: URL, got ${describeValue(value)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`${name} must be an http: or https: URL, got ${describeValue(value)}`);
  if (url.search || url.hash)
    throw new UsageError(`${name} must have no query or fragment, got ${describeValue(value)}`);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

function parseIds(values: string[] | undefined): Map<string, string> {
  const ids = new Map<string, string>();
  for (const entry of values ?? []) {
    const at = entry.indexOf("=");
    const name = at === -1 ? entry : entry.slice(0, at);
    const value = at === -1 ? "" : entry.slice(at + 1);
    if (!ID_NAMES.includes(name))
      throw new UsageError(
        `--id ${describeValue(entry)}: the name must be one of ${ID_NAMES.join(", ")} (--id name=value)`,
      );
    if (value === "" || value.length > MAX_ID_LENGTH || /[\s/?#]/.test(value))
      throw new UsageError(
        `--id ${name}= needs a value of 1 to ${MAX_ID_LENGTH} characters without spaces, "/", "?" or "#", got ${describeValue(value)}`,
      );
    ids.set(name, value);
  }
  return ids;
}

async function checkOutput(file: string): Promise<string> {
  const resolved = path.resolve(file);
  try {
    await access(path.dirname(resolved), constants.W_OK);
  } catch {
    throw new UsageError(`--output ${file}: its folder does not exist or is not writable`);
  }
  return resolved;
}

/** The command's help text. */
function verifyUsage(name: string): string {
  return `Usage: ${name} --base-url <url> --api-key <key> [--other-api-key <key>] [--company-id <id>]
       [--allow-writes] [--max-response-time <ms>] [--checks a,b] [--exclude-checks a,b] [--phases a,b] [--seed <n>]
       [--max-requests <n>] [--max-duration <duration>] [--min-coverage <0-100>] [--webhook-secret <s>]
       [--format text|json|junit|markdown] [--output <file>]
       ${name} --list-checks

Sends every operation of the contract its examples and seeded generated requests, ids chased from earlier
answers (what cannot be reached is reported as skipped, with the reason), then requests with one part
broken, without credentials and without X-Company-Id, then the coverage phase's boundary values (lengths, bounds,
enum edges, formats, required fields, types); judges every answer with the checks (--list-checks).
When the target serves the sandbox's control API it uses it to set up what the partner API cannot.

Options:
  --base-url <url>           the implementation (env PARTNER_API_BASE_URL); unreachable: exit 2
  --api-key <key>            an account's key (env ${KEY_VARIABLES.main})
  --other-api-key <key>      a second account's key: checks that neither sees the other's objects (env ${KEY_VARIABLES.other})
  --company-id <id>          act for this company first (a ULID); otherwise those listCompanies lists
  --id <name>=<value>        an id the partner API cannot list: ${ID_NAMES.join(", ")} (repeatable)
  --allow-writes             send requests that change data (onboard, create a card, …); without it the run is read-only
  --max-response-time <ms>   fail any answer slower than this
  --checks <a,b>             judge with these checks only
  --exclude-checks <a,b>     do not judge with these
  --phases <a,b>             the phases to run: ${PHASE_IDS.join(", ")} (default all; --list-checks says what each sends)
  --seed <n>                 the same seed sends the same requests (default 1)
  --max-requests <n>         send at most n requests (default ${DEFAULT_MAX_REQUESTS})
  --max-duration <duration>  stop the run after this long (90s, 30m, 1h; default ${formatDuration(DEFAULT_MAX_DURATION_MS)}):
                             the report covers what was done, and the exit code is 1
  --min-coverage <percent>   the share of the operations the options allow that must get a request that should
                             succeed (default 100); below it the run fails: "could not check …"
  --webhook-secret <s>       the signing secret of the receiver <receiver>/main you registered for --api-key's account
                             (env PARTNER_WEBHOOK_SECRET)
  --other-webhook-secret <s> the same for <receiver>/other and --other-api-key's account (env PARTNER_OTHER_WEBHOOK_SECRET)
  --webhook-host <host>      interface the receiver listens on (default 127.0.0.1)
  --webhook-port <port>      port the receiver listens on (default: a free one)
  --webhook-wait <ms>        how long to wait for expected webhooks (default ${DEFAULT_WEBHOOK_WAIT_MS})
  --format <format>          ${REPORT_FORMATS.join(", ")} (default text)
  --output <file>            write the report there instead of stdout (readable by you only)
  --list-checks              print the checks and exit
  -h, --help                 this text

Exit codes: 0 the implementation conforms, 1 at least one failure, an operation the options allow never exercised
(--min-coverage), or the run stopped before its end, 2 bad
input (an unreachable --base-url, a refused --api-key, a bad option), 3 a bug of the tool.`;
}

const VERIFY_OPTIONS = {
  "base-url": { type: "string" },
  "api-key": { type: "string" },
  "other-api-key": { type: "string" },
  "company-id": { type: "string" },
  id: { type: "string", multiple: true },
  "allow-writes": { type: "boolean" },
  "max-response-time": { type: "string" },
  checks: { type: "string" },
  "exclude-checks": { type: "string" },
  phases: { type: "string" },
  seed: { type: "string" },
  "max-requests": { type: "string" },
  "max-duration": { type: "string" },
  "webhook-secret": { type: "string" },
  "other-webhook-secret": { type: "string" },
  "min-coverage": { type: "string" },
  "webhook-host": { type: "string" },
  "webhook-port": { type: "string" },
  "webhook-wait": { type: "string" },
  format: { type: "string" },
  output: { type: "string" },
  "list-checks": { type: "boolean" },
} as const;

type VerifyValues = CommandContext<typeof VERIFY_OPTIONS>["values"];

/** --base-url, the keys and --company-id: whom the run acts for, and where. */
function parseTarget(values: VerifyValues) {
  const baseOption = optionOrEnv(values["base-url"], "--base-url", "PARTNER_API_BASE_URL");
  const baseUrl = parseBaseUrl(baseOption.value, baseOption.name);
  const key = optionOrEnv(values["api-key"], "--api-key", KEY_VARIABLES.main);
  if (key.value === undefined || key.value === "")
    throw new UsageError(
      `--api-key is required (or ${KEY_VARIABLES.main}): the key of an account of the implementation`,
    );
  const other = optionOrEnv(values["other-api-key"], "--other-api-key", KEY_VARIABLES.other);
  if (other.value !== undefined && other.value === key.value)
    throw new UsageError(`${other.name} must be another account's key than ${key.name}`);
  const companyId = values["company-id"];
  if (companyId !== undefined && !ULID.test(companyId))
    throw new UsageError(
      `--company-id must be a company's ULID (26 characters of Crockford base32), got ${describeValue(companyId)}`,
    );
  return { baseUrl, apiKey: key.value, otherApiKey: other.value, companyId };
}

/** --checks, --exclude-checks and --max-response-time: the checks to judge with. */
function parseChecks(values: VerifyValues, maxResponseTimeMs: number | undefined): Set<string> {
  const only = parseList(values.checks, "--checks");
  const excluded = parseList(values["exclude-checks"], "--exclude-checks") ?? [];
  const checks = new Set(only ?? defaultChecks());
  if (maxResponseTimeMs !== undefined && only === undefined) checks.add("max_response_time");
  if (checks.has("max_response_time") && maxResponseTimeMs === undefined)
    throw new UsageError("--checks max_response_time needs --max-response-time <ms>");
  for (const id of excluded) checks.delete(id);
  if (checks.size === 0) throw new UsageError("--checks and --exclude-checks leave no check to judge with");
  return checks;
}

/** The receivers' signing secrets: each account's, the other's only with --other-api-key. */
function parseSecrets(values: VerifyValues, otherApiKey: string | undefined) {
  const secret = optionOrEnv(values["webhook-secret"], "--webhook-secret", "PARTNER_WEBHOOK_SECRET");
  if (secret.value === "") throw new UsageError(`${secret.name} must not be empty`);
  const otherSecret = optionOrEnv(
    values["other-webhook-secret"],
    "--other-webhook-secret",
    "PARTNER_OTHER_WEBHOOK_SECRET",
  );
  if (otherSecret.value === "") throw new UsageError(`${otherSecret.name} must not be empty`);
  if (otherSecret.value !== undefined && otherApiKey === undefined)
    throw new UsageError(`${otherSecret.name} is the other account's: it needs --other-api-key`);
  return { webhookSecret: secret.value, otherWebhookSecret: otherSecret.value };
}

/** Every option checked, in the order the command always has checked them; the report's format and file. */
async function verifyOptions(values: VerifyValues): Promise<{
  options: VerifyOptions;
  format: ReportFormat;
  output: string | undefined;
}> {
  const { baseUrl, apiKey, otherApiKey, companyId } = parseTarget(values);
  const format = (values.format ?? "text") as ReportFormat;
  if (!REPORT_FORMATS.includes(format))
    throw new UsageError(`--format must be one of ${REPORT_FORMATS.join(", ")}, got ${describeValue(values.format)}`);
  const maxResponseTimeMs = parseInteger(values["max-response-time"], "--max-response-time", 1, 600_000);
  const checks = parseChecks(values, maxResponseTimeMs);
  const { webhookSecret, otherWebhookSecret } = parseSecrets(values, otherApiKey);
  const minCoverage = parseInteger(values["min-coverage"], "--min-coverage", 0, 100) ?? 100;
  const phases = parsePhases(values.phases);
  const output = values.output === undefined ? undefined : await checkOutput(values.output);
  const webhookHost = parseHost(values["webhook-host"], "--webhook-host");
  const webhookPort = parseInteger(values["webhook-port"], "--webhook-port", 0, 65_535);
  const maxDurationMs = parseMaxDuration(values["max-duration"]);
  const options: VerifyOptions = {
    baseUrl,
    apiKey,
    ...(otherApiKey !== undefined ? { otherApiKey } : {}),
    ...(companyId !== undefined ? { companyId } : {}),
    allowWrites: values["allow-writes"] === true,
    ...(maxResponseTimeMs !== undefined ? { maxResponseTimeMs } : {}),
    checks,
    ...(phases !== undefined ? { phases } : {}),
    seed: parseInteger(values.seed, "--seed", 0, 2 ** 31 - 1) ?? 1,
    maxRequests: parseInteger(values["max-requests"], "--max-requests", 1, 100_000) ?? DEFAULT_MAX_REQUESTS,
    maxDurationMs,
    ...(webhookSecret !== undefined ? { webhookSecret } : {}),
    ...(otherWebhookSecret !== undefined ? { otherWebhookSecret } : {}),
    minCoverage: minCoverage / 100,
    ...(webhookHost !== undefined ? { webhookHost } : {}),
    ...(webhookPort !== undefined ? { webhookPort } : {}),
    webhookWaitMs: parseInteger(values["webhook-wait"], "--webhook-wait", 0, 600_000) ?? DEFAULT_WEBHOOK_WAIT_MS,
    ids: parseIds(values.id),
  };
  return { options, format, output };
}

export function verifyCommand({ name }: VerifyCommandOptions) {
  return defineCommand({
    name,
    summary:
      "checks a running implementation of the partner API against the contract (responses, rules, auth, isolation, webhooks)",
    usage: verifyUsage(name),
    options: VERIFY_OPTIONS,
    async run({ values, io, signal }) {
      if (values["list-checks"]) {
        io.out(listChecks());
        return `${CHECKS.length} checks`;
      }
      const { options, format, output } = await verifyOptions(values);
      const report = await verify({
        ...options,
        onProgress: (message) => io.err(message),
        signal,
      }).catch((error: unknown) => {
        // Stopped before the first request (the reachability check): there is nothing to report.
        if (error instanceof RunStopped) throw new JobFailure(`${error.message}, before the first request`);
        throw error;
      });
      const rendered = renderReport(report, format);
      if (output) {
        // The report may quote answers: readable by its owner only, as the state and the proxy's report.
        await writeFile(output, rendered, { mode: 0o600 });
        await chmod(output, 0o600);
        io.err(`wrote the ${format} report to ${values.output}`);
      } else io.out(rendered);
      const line = `${report.baseUrl} ${describeVerdict(report, false)}`;
      if (!passed(report)) throw new JobFailure(line);
      return line;
    },
  });
}
