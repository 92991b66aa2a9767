// @ts-check
/**
 * The control API as the page calls it: openapi-fetch (served beside the page as openapi-fetch.js, the same
 * library the devkit's typed control client, sandbox/control-client.ts, is built on) over the control
 * contract's generated types, so each call's path, parameters, body and answer are checked as the CLI's are.
 * Same origin; an account is chosen by its fingerprint (`X-Sandbox-Account`, never a key). A problem answer
 * becomes a ControlError with its detail.
 */
import createClient from "./openapi-fetch.js";

/**
 * @typedef {import("../../../generated/sandbox.js").paths} ControlPaths
 * @typedef {import("../../../generated/sandbox.js").components["schemas"]} Schemas
 */

/**
 * The typed control client; `ok` turns its `{ data, error, response }` into the data or a ControlError.
 * @type {import("openapi-fetch").Client<ControlPaths>}
 */
export const client = createClient({ baseUrl: location.origin });

export class ControlError extends Error {
  /**
   * @param {number} status
   * @param {string} message
   * @param {unknown} body
   */
  constructor(status, message, body) {
    super(message);
    this.name = "ControlError";
    this.status = status;
    this.body = body;
  }
}

/**
 * A control call's data, or a ControlError naming the call and the sandbox's detail.
 * @template T
 * @param {Promise<{ data?: T, error?: unknown, response: Response }>} result
 * @returns {Promise<T>}
 */
export async function ok(result) {
  const { data, error, response } = await result;
  if (!response.ok) {
    const detail =
      error && typeof error === "object" && "detail" in error ? String(error.detail) : JSON.stringify(error ?? "");
    const path = new URL(response.url).pathname;
    throw new ControlError(response.status, `${path}: ${response.status} ${detail}`, error);
  }
  return /** @type {T} */ (data);
}

/**
 * The headers that act as an account (none for the whole sandbox).
 * @param {string | undefined} account its fingerprint
 * @returns {Record<string, string>}
 */
export const as = (account) => (account ? { "x-sandbox-account": account } : {});

/** @type {Promise<any> | undefined} */
let partnerContract;

/** The partner API's contract as the sandbox serves it (its enums and operations fill the page's menus). */
export function loadPartnerContract() {
  partnerContract ??= fetch("/_dashboard/openapi.json").then((response) => {
    if (!response.ok) throw new Error(`the partner contract could not be read (${response.status})`);
    return response.json();
  });
  return partnerContract;
}

/**
 * A named schema's enum from the partner contract, e.g. `KycStatus`.
 * @param {string} name
 * @returns {Promise<string[]>}
 */
export async function enumOf(name) {
  const contract = await loadPartnerContract();
  return contract.components?.schemas?.[name]?.enum?.filter((/** @type {unknown} */ v) => v !== null) ?? [];
}

/**
 * Every partner API operation: its id, method and path template, in the contract's order.
 * @returns {Promise<{ operationId: string, method: string, path: string, summary: string }[]>}
 */
export async function partnerOperations() {
  const contract = await loadPartnerContract();
  const operations = [];
  for (const [path, item] of Object.entries(contract.paths ?? {})) {
    for (const method of ["get", "post", "put", "patch", "delete"]) {
      const operation = item[method];
      if (operation?.operationId)
        operations.push({
          operationId: operation.operationId,
          method: method.toUpperCase(),
          path,
          summary: operation.summary ?? "",
        });
    }
  }
  return operations;
}
