/**
 * `npm run docs:preview`: serves dist/docs/ (or `--dir DIR`) on http://127.0.0.1:4040/ (DOCS_HOST /
 * DOCS_PORT, or `--host` / `--port`, change that; port 0 picks a free one). Builds the docs there
 * first when index.html is missing, or always with `--build`. Ctrl-C stops it, and so does the end of the
 * process that started it (lifecycle.ts: npm run, npx).
 */
import { access } from "node:fs/promises";
import path from "node:path";
import {
  defineCommand,
  formatDuration,
  isEntryPoint,
  JobFailure,
  main,
  optionOrEnv,
  parseHost,
  parseInteger,
  step,
  UsageError,
  untilStopped,
} from "partner-api-devkit/cli";
import { buildDocs, docsDir } from "./lib/docs/build.ts";
import { TRY_IT_PAGE } from "./lib/docs/pages.ts";
import { serveStatic } from "./lib/docs/server.ts";
import { LOCAL_SANDBOX_URL, TRY_IT_CONFIG_FILE } from "./lib/docs/try-it.ts";
import { rel } from "./lib/paths.ts";

export const docsPreviewCommand = defineCommand({
  name: "npm run docs:preview --",
  summary: "serve the API reference locally, building it first when it is missing",
  usage: `Usage: [DOCS_HOST=host] [DOCS_PORT=port] npm run docs:preview [-- --port N --host H --dir DIR --build]

Options:
  --port <n>    port to listen on, 0 picks a free one (default 4040, or DOCS_PORT; 4020 is the sandbox's, 4030 the proxy's)
  --host <h>    address to listen on (default 127.0.0.1, or DOCS_HOST)
  --dir <dir>   folder to serve (default dist/docs/)
  --build       rebuild the docs there first, even when index.html exists
  --no-exit-with-parent  keep serving after the process that started it (npm run, npx) is gone
  --sandbox <port|url>  the sandbox Try it looks for: a port on 127.0.0.1 or an http(s) address (default
                the sandbox's own, 4020, or SANDBOX_PORT as \`npm run sandbox\` reads it)

Prints the URL on stdout once it listens; Ctrl-C (or SIGTERM, or the end of the process that started it) stops it.
Exit codes: 0 stopped, 1 the port is in use, 2 bad input, 3 a bug.`,
  options: {
    port: { type: "string" },
    host: { type: "string" },
    dir: { type: "string" },
    build: { type: "boolean" },
    "no-exit-with-parent": { type: "boolean" },
    sandbox: { type: "string" },
  },
  quiet: true,
  async run({ values, io, signal }) {
    const started = performance.now();
    const port = optionOrEnv(values.port, "--port", "DOCS_PORT");
    const host = optionOrEnv(values.host, "--host", "DOCS_HOST");
    // A fixed default port so the preview URL is stable.
    const listenPort = parseInteger(port.value, port.name, 0, 65_535) ?? 4040;
    const listenHost = parseHost(host.value, host.name) ?? "127.0.0.1";
    if (values.dir === "") throw new UsageError("--dir needs a folder, got an empty value");
    const dir = values.dir === undefined ? docsDir : path.resolve(values.dir);
    const sandbox = parseSandbox(optionOrEnv(values.sandbox, "--sandbox", "SANDBOX_PORT"));
    const index = path.join(dir, "index.html");
    const missing = await access(index).then(
      () => false,
      () => true,
    );
    if (missing || values.build) {
      const why = values.build ? "--build" : `${rel(index)} is missing`;
      const result = await step(io, `build the docs (${why})`, () =>
        buildDocs({ outDir: dir, onProgress: (message) => io.err(`  ${message}`) }),
      );
      io.err(
        `  ${result.operations} operations, ${result.webhooks} webhooks, ${(result.indexBytes / 1024 / 1024).toFixed(2)} MiB`,
      );
    } else {
      io.err(`• using the existing ${rel(index)} (run \`npm run docs\` or pass --build to rebuild)`);
    }
    const server = await step(io, `serve ${rel(dir)} on ${listenHost}:${listenPort}`, () =>
      serveStatic(dir, {
        host: listenHost,
        port: listenPort,
        onRequest: ({ method, path: p, status }) => io.err(`  ${status} ${method} ${p}`),
        files: sandbox
          ? { [TRY_IT_CONFIG_FILE]: { body: `${JSON.stringify({ sandbox })}\n`, type: "application/json" } }
          : {},
      }).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "EADDRINUSE")
          throw new JobFailure(
            `port ${listenPort} on ${listenHost} is in use; set DOCS_PORT (or --port) to another port, 0 picks a free one`,
          );
        throw error;
      }),
    );
    io.out(`Docs preview: ${server.url} (ready in ${formatDuration(performance.now() - started)}). Ctrl-C stops it.`);
    io.err(`  Try it: ${server.url}${TRY_IT_PAGE.file} looks for the sandbox at ${sandbox ?? LOCAL_SANDBOX_URL}`);
    // Like the devkit's servers: gone with npm (or npx) when that is killed, not left serving as an orphan.
    await untilStopped(signal, io, !values["no-exit-with-parent"]);
    await server.close();
    io.err(`✓ preview stopped after ${formatDuration(performance.now() - started)}`);
    return undefined;
  },
});

/** `--sandbox` (or SANDBOX_PORT): a port on 127.0.0.1 or an http(s) address, without a trailing slash. */
export function parseSandbox({ value, name }: { value: string | undefined; name: string }): string | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return `http://127.0.0.1:${parseInteger(text, name, 1, 65_535)}`;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash)
    throw new UsageError(
      `${name} must be a port (1 to 65535) or an http(s) address like http://127.0.0.1:4021, got "${value}"`,
    );
  return url.href.replace(/\/$/, "");
}

if (isEntryPoint(import.meta.url)) await main(docsPreviewCommand);
