/**
 * `npm run docs:preview`: serves dist/docs/ (or `--dir DIR`) on http://127.0.0.1:4020/ (DOCS_HOST /
 * DOCS_PORT, or `--host` / `--port`, change that; port 0 picks a free one). Builds the docs there
 * first when index.html is missing, or always with `--build`. Ctrl-C stops it.
 */
import { access } from "node:fs/promises";
import path from "node:path";
import { buildDocs, docsDir } from "./lib/docs/build.ts";
import { DEFAULT_DOCS_HOST, DEFAULT_DOCS_PORT, parseHost, parsePort } from "./lib/docs/options.ts";
import { type StaticServer, serveStatic } from "./lib/docs/server.ts";
import { fail, formatDuration, step } from "./lib/log.ts";
import { rel } from "./lib/paths.ts";

const usage = "usage: [DOCS_HOST=host] [DOCS_PORT=port] npm run docs:preview [-- --port N --host H --dir DIR --build]";
const started = performance.now();
let host = DEFAULT_DOCS_HOST;
let port = DEFAULT_DOCS_PORT;
let rebuild = false;
let dir = docsDir;
try {
  if (process.env.DOCS_PORT) port = parsePort(process.env.DOCS_PORT, "DOCS_PORT");
  if (process.env.DOCS_HOST) host = parseHost(process.env.DOCS_HOST, "DOCS_HOST");
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    const value = () => inline ?? args[++i] ?? "";
    if (flag === "--port") port = parsePort(value(), "--port");
    else if (flag === "--host") host = parseHost(value(), "--host");
    else if (flag === "--dir") {
      const folder = value();
      if (!folder) throw new Error(`--dir needs a folder; ${usage}`);
      dir = path.resolve(folder);
    } else if (flag === "--build" && inline === undefined) rebuild = true;
    else throw new Error(`unknown argument "${args[i]}"; ${usage}`);
  }
} catch (error) {
  fail((error as Error).message, 2);
}

let server: StaticServer | undefined;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    process.stderr.write(`\n${signal === "SIGINT" ? "Ctrl-C" : signal}: stopping the preview…\n`);
    void (server?.close() ?? Promise.resolve()).finally(() => {
      process.stderr.write(`✓ preview stopped after ${formatDuration(performance.now() - started)}\n`);
      process.exit(0);
    });
  });
}

try {
  const index = path.join(dir, "index.html");
  const missing = await access(index).then(
    () => false,
    () => true,
  );
  if (missing || rebuild) {
    const why = rebuild ? "--build" : `${rel(index)} is missing`;
    const result = await step(`build the docs (${why})`, () =>
      buildDocs({ outDir: dir, onProgress: (message) => process.stderr.write(`  ${message}\n`) }),
    );
    process.stderr.write(
      `  ${result.operations} operations, ${result.webhooks} webhooks, ${(result.indexBytes / 1024 / 1024).toFixed(2)} MiB\n`,
    );
  } else {
    process.stderr.write(`• using the existing ${rel(index)} (run \`npm run docs\` or pass --build to rebuild)\n`);
  }
  server = await step(`serve ${rel(dir)} on ${host}:${port}`, () =>
    serveStatic(dir, {
      host,
      port,
      onRequest: ({ method, path: p, status }) => process.stderr.write(`  ${status} ${method} ${p}\n`),
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE")
        throw new Error(`port ${port} on ${host} is in use; set DOCS_PORT to another port (0 picks a free one)`);
      throw error;
    }),
  );
  console.log(
    `Docs preview: ${server.url} (ready in ${formatDuration(performance.now() - started)}). Ctrl-C stops it.`,
  );
} catch (error) {
  fail((error as Error).message);
}
