/**
 * `partner-api proxy` (and `npm run proxy` in this repository): a validating proxy in front of an
 * implementation of the partner API. Each violation is printed as it happens and appended to --report (one
 * JSON object per line, the fields of verify's failures); Ctrl-C prints a summary and, with
 * --fail-on-violation, exits 1 when there was any. The work is devkit/src/conformance/proxy.ts.
 */
import { constants, readFileSync } from "node:fs";
import { access, appendFile } from "node:fs/promises";
import path from "node:path";
import { formatDuration } from "../common/duration.ts";
import { startProxy } from "../conformance/proxy.ts";
import type { Failure } from "../conformance/types.ts";
import { contractJsonPath } from "../paths.ts";
import { untilStopped } from "./lifecycle.ts";
import { defineCommand, describeValue, JobFailure, parseHost, parseInteger, UsageError } from "./runner.ts";

export const DEFAULT_PROXY_PORT = 4030;

export interface ProxyCommandOptions {
  /** How the user invokes it: `partner-api proxy` or `npm run proxy --`. */
  name: string;
}

function parseUpstream(value: string | undefined): string {
  if (value === undefined || value === "")
    throw new UsageError("--upstream is required: the implementation to forward to, e.g. http://127.0.0.1:4020");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--upstream must be an http: or https: URL, got ${describeValue(value)}`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash)
    throw new UsageError(
      `--upstream must be an http: or https: URL without query or fragment, got ${describeValue(value)}`,
    );
  return value;
}

/** One line per violation, as it happens. */
export function violationLine(failure: Failure): string {
  return `✗ [${failure.check}] ${failure.operationId} ${failure.method} ${failure.path} → ${failure.status ?? "no answer"}: ${failure.message}${failure.jsonPath ? ` (at ${failure.jsonPath || "the body"})` : ""}`;
}

export function proxyCommand({ name }: ProxyCommandOptions) {
  return defineCommand({
    name,
    summary:
      "forwards requests to an implementation unchanged and reports every answer (and request) that breaks the contract",
    usage: `Usage: ${name} --upstream <url> [--port ${DEFAULT_PROXY_PORT}] [--host <host>] [--report <file.jsonl>]
       [--fail-on-violation] [--max-response-time <ms>]

Point your integration tests at the proxy instead of the implementation. Both directions are validated
against the contract with verify's checks (${name.replace(/proxy$/, "verify")} --list-checks); what passes through is not changed.

Options:
  --upstream <url>           the implementation to forward to (the staging sandbox, the local sandbox, the service)
  --port <port>              port to listen on (default ${DEFAULT_PROXY_PORT}; 0 picks a free one)
  --host <host>              interface to listen on (default 127.0.0.1)
  --report <file.jsonl>      append each violation there, one JSON object per line
  --fail-on-violation        exit 1 at Ctrl-C when there was any error-level violation
  --max-response-time <ms>   report any answer slower than this
  --no-exit-with-parent      keep running after the process that started it (npx, npm run) is gone
  -h, --help                 this text

Ctrl-C (or SIGTERM, or the end of the process that started it) prints the summary. Exit codes: 0 stopped
(or no violation), 1 violations with --fail-on-violation, or it could not listen, 2 bad option.`,
    options: {
      upstream: { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      report: { type: "string" },
      "fail-on-violation": { type: "boolean" },
      "max-response-time": { type: "string" },
      "no-exit-with-parent": { type: "boolean" },
    },
    quiet: true,
    async run({ values, io, signal }) {
      const started = performance.now();
      const upstream = parseUpstream(values.upstream);
      const port = parseInteger(values.port, "--port", 0, 65_535) ?? DEFAULT_PROXY_PORT;
      const host = parseHost(values.host, "--host") ?? "127.0.0.1";
      const maxResponseTimeMs = parseInteger(values["max-response-time"], "--max-response-time", 1, 600_000);
      const reportFile = values.report === undefined ? undefined : path.resolve(values.report);
      if (reportFile !== undefined) {
        if (values.report === "") throw new UsageError("--report must be a file path");
        try {
          await access(path.dirname(reportFile), constants.W_OK);
        } catch {
          throw new UsageError(`--report ${values.report}: its folder does not exist or is not writable`);
        }
      }
      let writes: Promise<void> = Promise.resolve();
      const proxy = await startProxy({
        upstream,
        host,
        port,
        ...(maxResponseTimeMs !== undefined ? { maxResponseTimeMs } : {}),
        document: JSON.parse(readFileSync(contractJsonPath, "utf8")),
        onViolation: (failure) => {
          io.err(violationLine(failure));
          if (reportFile !== undefined)
            writes = writes
              .then(() => appendFile(reportFile, `${JSON.stringify(failure)}\n`))
              .catch((error: Error) => {
                io.err(`could not append to ${values.report}: ${error.message}`);
              });
        },
      }).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "EADDRINUSE" || error.code === "EACCES" || error.code === "EADDRNOTAVAIL")
          throw new JobFailure(
            `cannot listen on ${host}:${port}: ${error.code}; set --port to a free port (0 picks one)`,
          );
        throw error;
      });
      io.out(
        `Proxy on ${proxy.url} → ${upstream}, validating against the contract (started in ${formatDuration(performance.now() - started)})${reportFile ? `; violations appended to ${values.report}` : ""}. Ctrl-C stops it.`,
      );
      await untilStopped(signal, io, !values["no-exit-with-parent"]);
      await proxy.settled();
      await proxy.close();
      await writes;
      const errors = proxy.errors();
      const warnings = [...proxy.counts.values()].reduce((sum, count) => sum + count, 0) - errors;
      const byCheck = proxy.counts;
      const summary = `${proxy.stats.requests} request(s) forwarded (${proxy.stats.unmatched} not in the contract), ${errors} violation(s), ${warnings} warning(s)${byCheck.size > 0 ? `: ${[...byCheck].map(([id, count]) => `${id} ${count}`).join(", ")}` : ""}`;
      if (errors > 0 && values["fail-on-violation"]) throw new JobFailure(summary);
      io.err(`✓ proxy stopped: ${summary}`);
      return undefined;
    },
  });
}
