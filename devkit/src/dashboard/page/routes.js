// @ts-check
/** The page's views by hash: `#/accounts`, `#/events`, `#/requests`, `#/clock`, `#/console`. */

export const VIEW_NAMES = /** @type {const} */ (["accounts", "events", "requests", "clock", "console"]);
export const DEFAULT_VIEW = "accounts";

/**
 * The view a hash names. The page's own hashes start with `#/` (the console's reference adds its place after
 * it: `#/console/partner-api/tag/…`); any other non-empty hash is a place Scalar wrote in the console's
 * reference, so it belongs to the console too. Anything unknown is the default view.
 * @param {string} hash
 * @returns {string}
 */
export function viewOf(hash) {
  if (hash !== "" && hash !== "#" && !hash.startsWith("#/")) return "console";
  const name = hash.replace(/^#\/?/, "").split("/")[0] ?? "";
  return /** @type {readonly string[]} */ (VIEW_NAMES).includes(name) ? name : DEFAULT_VIEW;
}
