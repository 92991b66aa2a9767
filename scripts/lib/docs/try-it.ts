/**
 * Try it: Scalar's API reference (`@scalar/api-reference`, the console the sandbox's dashboard already vendors) over
 * the published contract, sending to a server the reader chooses: the local sandbox first when it answers on its
 * default address, then the contract's servers (their `base_url` is the reader's to fill in), or any address given
 * as `?server=` in the page's address. Offline: Scalar's one browser file is copied beside the page, its web fonts,
 * telemetry, AI agent and MCP link are off, and the page's Content-Security-Policy lets it load nothing from another
 * host (it may only connect to one, the server the reader picked). The API key is the reader's to type: the page
 * fills in none and keeps none.
 */
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { TRY_IT_PAGE, VERSION_SWITCH_SCRIPT } from "./pages.ts";

/** The sandbox's default address (`npx partner-api sandbox`), tried first. */
export const LOCAL_SANDBOX_URL = "http://127.0.0.1:4020";
/**
 * What `npm run docs:preview -- --sandbox <port|url>` serves beside the page: `{ "sandbox": "<url>" }`, the sandbox
 * Try it looks for first. Absent (any other host), Try it looks at LOCAL_SANDBOX_URL.
 */
export const TRY_IT_CONFIG_FILE = "try-config.json";
export const SCALAR_FILE = "scalar/standalone.js";
/** What the key field says instead of Scalar's own placeholder, a made-up token that looks like a key. */
export const KEY_PLACEHOLDER = "Your API key";
export const TRY_IT_SCRIPT = "try.js";

/** Scalar's standalone bundle as installed (the package exports no subpath for it: it sits beside the main entry). */
export function scalarStandalonePath(): string {
  const main = createRequire(import.meta.url).resolve("@scalar/api-reference");
  return path.join(path.dirname(main), "browser", "standalone.js");
}

/** Scripts and styles from the page's own folder; connections to any server the reader picks; nothing else. */
export const TRY_IT_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self' http: https:",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

function page(nav: string, title: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Try it: ${title}</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="icon" href="data:,">
  <meta http-equiv="Content-Security-Policy" content="${TRY_IT_CSP}">
  <style>body{margin:0}.try-intro{margin:0;padding:10px 20px;font:14px/1.5 system-ui,sans-serif;border-bottom:1px solid #e3e6ea}.try-intro code{font-size:13px}</style>
</head>
<body>
${nav}
<p class="try-intro" id="try-status">Loading the console…</p>
<div id="try-it"></div>
<script src="${SCALAR_FILE}"></script>
<script src="${TRY_IT_SCRIPT}"></script>
</body>
</html>
`;
}

/** The page's script: picks the servers, then starts Scalar on openapi.json beside the page. */
function script(): string {
  return `// Try it: which server the requests go to, then Scalar's API reference over the contract beside this page.
"use strict";
(function () {
  var LOCAL = ${JSON.stringify(LOCAL_SANDBOX_URL)};
  ${VERSION_SWITCH_SCRIPT}
  var status = document.getElementById("try-status");
  function say(text) { status.textContent = text; }

  /** True when the local sandbox answers within a second. */
  function sandboxAnswers() {
    var controller = new AbortController();
    var timer = setTimeout(function () { controller.abort(); }, 1000);
    // A simple request (no preflight) to the partner API, which answers any origin, with no key: no account is made,
    // and the API's 401 says a sandbox is there. (The control API under /_sandbox answers its own origin only.)
    return fetch(LOCAL + "/v1/companies", { signal: controller.signal })
      .then(function (response) { return response.status === 401; }, function () { return false; })
      .finally(function () { clearTimeout(timer); });
  }

  /** A ?server= address, when it is an http(s) URL. */
  function chosenServer() {
    var value = new URLSearchParams(location.search).get("server");
    if (!value) return undefined;
    try {
      var url = new URL(value);
      return url.protocol === "http:" || url.protocol === "https:" ? url.href.replace(/\\/$/, "") : undefined;
    } catch (error) {
      return undefined;
    }
  }

  // Scalar's key fields carry a made-up token as their placeholder; a reader could take it for a key to use.
  var KEY_LIKE = /^[A-Za-z0-9+/=_-]{20,}$/;
  function plainPlaceholders() {
    document.querySelectorAll("input[placeholder]").forEach(function (input) {
      if (KEY_LIKE.test(input.placeholder)) input.placeholder = ${JSON.stringify(KEY_PLACEHOLDER)};
    });
  }
  new MutationObserver(plainPlaceholders).observe(document.body, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ["placeholder"]
  });

  /** The sandbox docs:preview was told of (${TRY_IT_CONFIG_FILE}), when it serves the page. */
  function previewSandbox() {
    return fetch(${JSON.stringify(TRY_IT_CONFIG_FILE)}).then(
      function (response) { return response.ok ? response.json() : {}; },
      function () { return {}; }
    ).then(function (config) {
      try {
        var url = new URL(config && config.sandbox);
        if (url.protocol === "http:" || url.protocol === "https:") LOCAL = url.href.replace(/\\/$/, "");
      } catch (error) { /* none: the default address */ }
    }, function () {});
  }

  if (location.protocol === "file:") {
    say("Try it sends requests from the page, so it must be served: run npm run docs:preview, or put this folder on a web server.");
    return;
  }
  var chosen = chosenServer();
  // A server named in the address is the reader's pick: the local sandbox is then listed, not probed.
  var probe = chosen ? Promise.resolve(false) : previewSandbox().then(sandboxAnswers);
  Promise.all([fetch("openapi.json").then(function (r) { return r.json(); }), probe]).then(function (results) {
    var contract = results[0];
    var local = { url: LOCAL, description: "Local sandbox (npx partner-api sandbox)" };
    var servers = (contract.servers || []).slice();
    if (results[1]) servers.unshift(local); else servers.push(local);
    if (chosen) servers.unshift({ url: chosen, description: "The server in this page's address (?server=)" });
    say(chosen
      ? "Requests go to " + chosen + ". Type your API key under Authentication; it stays in this page."
      : results[1]
        ? "Requests go to your local sandbox at " + LOCAL + " (it answers). Pick another server below; type your API key under Authentication: it stays in this page."
        : "No sandbox answers at " + LOCAL + ": start one with npx partner-api sandbox, or pick a server below and fill in its address. Type your API key under Authentication: it stays in this page.");
    window.Scalar.createApiReference("#try-it", {
      content: contract,
      servers: servers,
      withDefaultFonts: false,
      telemetry: false,
      agent: { disabled: true },
      mcp: { disabled: true },
      showDeveloperTools: "never",
      hideDarkModeToggle: false,
      persistAuth: false,
      defaultOpenFirstTag: true,
      authentication: { preferredSecurityScheme: "ApiKey" }
    });
  }, function (error) {
    say("The console could not start: " + error.message);
  });
})();
`;
}

/** Writes try.html, try.js and Scalar's bundle into `outDir`; returns the files, relative to it. */
export async function writeTryIt(outDir: string, nav: string, title: string): Promise<string[]> {
  await mkdir(path.join(outDir, path.dirname(SCALAR_FILE)), { recursive: true });
  await copyFile(scalarStandalonePath(), path.join(outDir, SCALAR_FILE));
  await writeFile(path.join(outDir, TRY_IT_PAGE.file), page(nav, title));
  await writeFile(path.join(outDir, TRY_IT_SCRIPT), script());
  return [TRY_IT_PAGE.file, TRY_IT_SCRIPT, SCALAR_FILE];
}
