// @ts-check
/**
 * Console: Scalar's API reference over the sandbox's own contracts (the partner API, and the control API
 * as a second document), its "Test Request" client sending to this sandbox as the chosen account. Scalar's
 * bundle (several MB) loads only when this view first opens. Its web fonts, telemetry, AI agent and
 * developer toolbar are off, so it loads nothing from another host. Beside it, the chosen account's latest
 * calls from the request log: status, and the rules a request or its answer broke.
 */
import { as, client, ok } from "./api.js";
import { badge, formatClock, h, showProblem, statusTone } from "./dom.js";

const SCALAR_SRC = "/_dashboard/scalar.js";
/** Calls listed beside the console. */
const RECENT = 8;
/** Scalar's key fields carry a made-up token as their placeholder: one a reader could take for a key to use. */
const KEY_LIKE = /^[A-Za-z0-9+/=_-]{20,}$/;
/** What such a field says instead. */
export const KEY_PLACEHOLDER = "Empty: sent as the chosen account";

/**
 * Gives every key-like placeholder under `root` plain words, now and whenever Scalar draws a field; returns the
 * function that stops watching.
 * @param {HTMLElement} root
 */
function plainKeyPlaceholders(root) {
  const plain = () => {
    for (const input of root.querySelectorAll("input[placeholder]"))
      if (KEY_LIKE.test(/** @type {HTMLInputElement} */ (input).placeholder))
        /** @type {HTMLInputElement} */ (input).placeholder = KEY_PLACEHOLDER;
  };
  const observer = new MutationObserver(plain);
  observer.observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ["placeholder"] });
  plain();
  return () => observer.disconnect();
}

/** @type {Promise<any> | undefined} */
let scalarLoaded;

/** Loads Scalar's standalone bundle once; resolves to its global. */
function loadScalar() {
  scalarLoaded ??= new Promise((resolve, reject) => {
    const existing = /** @type {any} */ (window).Scalar;
    if (existing) return resolve(existing);
    // Scalar's bundled Zod asks whether eval may run by calling Function(""): under the dashboard's CSP (no
    // 'unsafe-eval') that call is a violation, reported as such. Zod's own switch skips the question (and the
    // compiled validators it would build with eval): its global configuration, read from globalThis.
    const zod = /** @type {any} */ (globalThis);
    zod.__zod_globalConfig = { ...zod.__zod_globalConfig, jitless: true };
    const script = document.createElement("script");
    script.src = SCALAR_SRC;
    script.onload = () => resolve(/** @type {any} */ (window).Scalar);
    script.onerror = () => {
      scalarLoaded = undefined;
      reject(new Error(`the console could not load ${SCALAR_SRC}`));
    };
    document.head.append(script);
  });
  return scalarLoaded;
}

/**
 * Scalar's configuration for the sandbox: its contracts, this origin as the only server, nothing that
 * would call another host, and the chosen account on every request that carries no key of its own.
 * @param {() => string} account
 */
export function scalarConfiguration(account) {
  return {
    sources: [
      { title: "Partner API", slug: "partner-api", url: "/_dashboard/openapi.json" },
      { title: "Sandbox control API", slug: "sandbox-control", url: "/_dashboard/sandbox.json" },
    ],
    servers: [{ url: location.origin, description: "This sandbox" }],
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: "never",
    hideClientButton: true,
    hideDarkModeToggle: true,
    darkMode: matchMedia("(prefers-color-scheme: dark)").matches,
    persistAuth: false,
    defaultOpenFirstTag: false,
    onBeforeRequest: (/** @type {{ requestBuilder: { headers: Headers } }} */ { requestBuilder }) => {
      const headers = requestBuilder.headers;
      const chosen = account();
      if (chosen && !headers.get("x-api-key")) headers.set("x-sandbox-account", chosen);
    },
  };
}

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} context
 */
export function mount(root, context) {
  const status = h("p", { class: "muted", role: "status" }, "Loading the console…");
  const target = h("div", { id: "console-root" });
  const recent = h("ol", { class: "list", reversed: true });
  root.append(
    h(
      "p",
      { class: "muted" },
      "Pick an operation and press Test Request: it is sent to this sandbox as the chosen account ",
      "(a key typed into the console's X-API-Key field wins). The sandbox answers a request that breaks the ",
      "contract with 422 and the rules it broke.",
    ),
    status,
    h(
      "div",
      { class: "split" },
      target,
      h(
        "aside",
        { "aria-labelledby": "recent-title" },
        h("h2", { id: "recent-title" }, "The account's latest calls"),
        recent,
      ),
    ),
  );

  const stopPlaceholders = plainKeyPlaceholders(target);
  /** @type {any} */
  let app;
  let closed = false;
  loadScalar().then(
    (Scalar) => {
      if (closed) return;
      app = Scalar.createApiReference(target, scalarConfiguration(context.account));
      status.textContent = "";
    },
    (error) => {
      status.textContent = "";
      showProblem(error);
    },
  );

  let seen = "";
  async function refreshRecent() {
    const account = context.account();
    if (!account) return;
    const { requests } = await ok(
      client.GET("/_sandbox/requests", { params: { query: { limit: RECENT, api: "partner" } }, headers: as(account) }),
    );
    const text = JSON.stringify(requests);
    if (text === seen) return;
    seen = text;
    recent.replaceChildren(...requests.map(recentCall));
  }
  const stream = new EventSource("/_sandbox/requests/stream?api=partner");
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let pending;
  stream.addEventListener("request", () => {
    pending ??= setTimeout(() => {
      pending = undefined;
      refreshRecent().catch(() => undefined);
    }, 300);
  });
  refreshRecent().catch(() => undefined);
  const stopAccount = context.onAccountChange(() => {
    seen = "";
    refreshRecent().catch(() => undefined);
  });

  return () => {
    closed = true;
    stopPlaceholders();
    stream.close();
    clearTimeout(pending);
    stopAccount();
    app?.destroy?.();
  };
}

/** @param {import("./api.js").Schemas["SandboxRequest"]} call */
function recentCall(call) {
  // The logged answer's body is whatever the sandbox sent: a problem document for a refused request.
  const problem = /** @type {{ detail?: string, validation?: { message: string }[] } | undefined} */ (
    call.response?.body && typeof call.response.body === "object" ? call.response.body : undefined
  );
  const broken = [
    ...(problem?.validation ?? []).map((/** @type {any} */ issue) => `request: ${issue.message}`),
    ...(call.contract?.issues ?? []).map((/** @type {any} */ issue) => `answer: ${issue.message}`),
  ];
  return h(
    "li",
    { class: "card", dataset: { id: call.id } },
    h(
      "p",
      { class: "row" },
      badge(call.status === null ? "dropped" : String(call.status), statusTone(call.status)),
      h("strong", {}, call.operationId ?? call.path),
      h("span", { class: "muted" }, formatClock(call.at)),
    ),
    problem?.detail ? h("p", {}, problem.detail) : null,
    broken.length > 0
      ? h("ul", { "aria-label": "Rules broken" }, ...broken.map((text) => h("li", { class: "bad" }, text)))
      : null,
  );
}
