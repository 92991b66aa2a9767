/**
 * What every `partner-api sandbox <command>` shares: the --url and --api-key options, the typed control client
 * they make (sandbox/control-client.ts, throwing on error answers), and how a failed call becomes the runner's
 * verdict.
 */
import { ApiError } from "partner-api-client";
import type { components } from "../../../generated/sandbox.js";
import type { SandboxControl } from "../../sandbox/control-client.ts";
import { createSandboxControl, DEFAULT_SANDBOX_PORT } from "../../sandbox/index.ts";
import { type CliIO, describeValue, JobFailure, optionOrEnv, parseInteger, UsageError } from "../runner.ts";

export type Schemas = components["schemas"];

export const DEFAULT_SANDBOX_URL = `http://127.0.0.1:${DEFAULT_SANDBOX_PORT}`;
export const DEFAULT_CONTROL_API_KEY = "sandbox";

/** The options every control command takes. */
export const CONNECTION = { url: { type: "string" }, "api-key": { type: "string" } } as const;
export const CONNECTION_USAGE = `  --url <url>          the sandbox (default ${DEFAULT_SANDBOX_URL}; env SANDBOX_URL)
  --api-key <key>      the account to act as (default "${DEFAULT_CONTROL_API_KEY}"; env SANDBOX_API_KEY)`;
export const JSON_USAGE = "  --json               print the control API's answer as JSON instead";

export interface Connection {
  url: string;
  apiKey: string | undefined;
  control: SandboxControl<true>;
}

/** The sandbox and the account a command talks to; `allAccounts` drops the key (the whole sandbox). */
export function connect(values: { url?: string; "api-key"?: string }, allAccounts = false): Connection {
  const urlOption = optionOrEnv(values.url, "--url", "SANDBOX_URL");
  const url = (urlOption.value ?? DEFAULT_SANDBOX_URL).replace(/\/+$/, "");
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:"))
    throw new UsageError(
      `${urlOption.name} must be the sandbox's http(s) URL (e.g. ${DEFAULT_SANDBOX_URL}), got ${describeValue(url)}`,
    );
  const keyOption = optionOrEnv(values["api-key"], "--api-key", "SANDBOX_API_KEY");
  if (keyOption.value === "") throw new UsageError(`${keyOption.name} must not be empty`);
  const apiKey = allAccounts ? undefined : (keyOption.value ?? DEFAULT_CONTROL_API_KEY);
  return {
    url,
    apiKey,
    control: createSandboxControl({ url, ...(apiKey !== undefined ? { apiKey } : {}), throwOnError: true }),
  };
}

/**
 * Runs one control call and turns its failure into the runner's verdict: the sandbox refusing the input
 * (an invalid request, an unknown id) is bad input (exit 2), any other refusal the job's "no" (exit 1), and an
 * unreachable sandbox says how to start one (exit 1).
 */
export async function call<T>(connection: Connection, what: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof ApiError) {
      const problem = error.body as { type?: string; detail?: string } | undefined;
      const detail = problem?.detail ?? JSON.stringify(error.body);
      const message = `${what}: the sandbox answered ${error.status}: ${detail}`;
      if (error.status === 404 || error.status === 401 || problem?.type?.endsWith("/invalid-request"))
        throw new UsageError(message);
      throw new JobFailure(message);
    }
    if (error instanceof UsageError || error instanceof JobFailure) throw error;
    const { cause } = error as { cause?: { code?: string; message?: string } };
    const why = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new JobFailure(
      `${what}: no sandbox answers at ${connection.url} (${why}); start one with \`npx partner-api sandbox\` or pass --url`,
    );
  }
}

export const printJson = (io: CliIO, value: unknown) => io.out(JSON.stringify(value, null, 2));

/** `{ [field]: n }` for an integer option given, `{}` for one left out; a bad value is a UsageError naming it. */
export function optionalInteger(value: string | undefined, option: string, field: string, min: number, max: number) {
  const number = parseInteger(value, option, min, max);
  return number === undefined ? {} : { [field]: number };
}
