// @ts-check
/**
 * The control API as the page calls it: same origin, JSON in and out, an account chosen by its
 * fingerprint (`X-Sandbox-Account`, never a key). A problem answer becomes an Error with its detail.
 */

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
 * @param {string} method
 * @param {string} path a /_sandbox/… path, with its query
 * @param {{ account?: string, body?: unknown }} [options]
 * @returns {Promise<any>}
 */
export async function control(method, path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: "application/json" };
  if (options.account) headers["x-sandbox-account"] = options.account;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  let body;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  if (!response.ok) {
    const detail = body && typeof body === "object" && "detail" in body ? body.detail : text;
    throw new ControlError(response.status, `${method} ${path.split("?")[0]}: ${response.status} ${detail}`, body);
  }
  return body;
}

/** @param {string} segment */
export const encode = (segment) => encodeURIComponent(segment);

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
