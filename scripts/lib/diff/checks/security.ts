/** Security: the requirements an operation asks for (alternatives, scopes) and the scheme components. */
import { code, stable } from "../pairs.ts";
import { DOC_KEYWORDS, isObject, type Json, type JsonObject } from "../resolve.ts";
import { defineFamily, one } from "./define.ts";

const family = defineFamily("security", import.meta.url, {
  "security-requirement-removed": one(
    "document",
    "Security requirement alternative removed",
    "error",
    ["api-security-removed", "api-global-security-removed"],
    { why: "Callers holding only the removed alternative's credentials are locked out." },
  ),
  "security-requirement-added": one("document", "Security requirement alternative added", "info", [
    "api-security-added",
    "api-global-security-added",
  ]),
  "security-made-optional": one(
    "document",
    "Security requirement removed where anonymous calls are now allowed",
    "info",
  ),
  "security-anonymous-access-removed": one(
    "document",
    "Security required where anonymous calls were allowed",
    "error",
    ["api-security-added", "api-global-security-added"],
    {
      why: "oasdiff reads any added requirement as one more alternative; where anonymous calls were allowed, every existing caller now needs credentials.",
    },
  ),
  "security-scope-added": one(
    "document",
    "OAuth scope added to a security requirement",
    "error",
    ["api-security-scope-added", "api-global-security-scope-added"],
    { why: "Tokens issued without the new scope are refused: callers must get new tokens." },
  ),
  "security-scope-removed": one("document", "OAuth scope removed from a security requirement", "info", [
    "api-security-scope-removed",
    "api-global-security-scope-removed",
  ]),
  "security-scheme-removed": one("document", "Security scheme component removed", "info", [
    "api-security-component-removed",
  ]),
  "security-scheme-added": one("document", "Security scheme component added", "info", ["api-security-component-added"]),
  "security-scheme-changed": one(
    "document",
    "Security scheme component changed (flows, URLs, scopes, descriptions)",
    "info",
    [
      "api-security-component-oauth-url-changed",
      "api-security-component-oauth-token-url-changed",
      "api-security-component-oauth-scope-added",
      "api-security-component-oauth-scope-removed",
      "api-security-component-oauth-scope-changed",
    ],
  ),
  "security-scheme-wire-changed": one(
    "document",
    "Security scheme type, location, name, HTTP scheme or OpenID Connect URL changed",
    "error",
    ["api-security-component-type-changed"],
    {
      why: "The type, header name, location, HTTP scheme or OpenID Connect URL is what clients put on the wire or where they get tokens: every caller is locked out.",
    },
  ),
});
export default family;

/** What clients put on the wire, or where they get their token: changing it locks every caller out. */
const WIRE_KEYS = ["type", "in", "name", "scheme", "openIdConnectUrl"];

const SCHEME_KINDS = [
  "security-scheme-removed",
  "security-scheme-added",
  "security-scheme-changed",
  "security-scheme-wire-changed",
] as const;
family.detector("schemes", ["scheme"], SCHEME_KINDS, ({ name, place, before, after }, out) => {
  if (!after) return out.emit("security-scheme-removed", place, `security scheme \`${name}\` removed`);
  if (!before) return out.emit("security-scheme-added", place, `security scheme \`${name}\` added`);
  // HTTP authentication scheme names are case-insensitive (RFC 9110, 11.1): `Basic` is `basic`.
  const wireValue = (scheme: JsonObject, key: string) =>
    key === "scheme" && typeof scheme[key] === "string" ? scheme[key].toLowerCase() : scheme[key];
  const wire = WIRE_KEYS.filter((key) => stable(wireValue(before, key)) !== stable(wireValue(after, key)));
  const strip = (scheme: JsonObject) =>
    Object.fromEntries(Object.entries(scheme).filter(([key]) => !DOC_KEYWORDS.has(key)));
  if (wire.length > 0)
    out.emit(
      "security-scheme-wire-changed",
      place,
      wire.map((key) => `${key} ${code(before[key])} → ${code(after[key])}`).join(", "),
    );
  else if (stable(strip(before)) !== stable(strip(after)))
    out.emit("security-scheme-changed", place, `security scheme \`${name}\` changed`);
});

/** Requirement alternatives keyed by their schemes; each with its schemes' scopes. No security at all is none. */
function alternatives(value: Json | undefined): Map<string, Map<string, Set<string>>> {
  const map = new Map<string, Map<string, Set<string>>>();
  for (const requirement of Array.isArray(value) ? value.filter(isObject) : []) {
    const names = Object.keys(requirement).sort();
    const scopes = new Map(
      names.map((name) => {
        const list = requirement[name];
        return [name, new Set(Array.isArray(list) ? list.map(String) : [])];
      }),
    );
    map.set(names.join(" + ") || "anonymous", scopes);
  }
  return map;
}

const REQUIREMENT_KINDS = [
  "security-requirement-removed",
  "security-requirement-added",
  "security-made-optional",
  "security-anonymous-access-removed",
  "security-scope-added",
  "security-scope-removed",
] as const;
family.detector("requirements", ["security"], REQUIREMENT_KINDS, ({ where, before, after }, out) => {
  const a = alternatives(before);
  const b = alternatives(after);
  const place = `${where} security`;
  // No requirement, or an empty one (`{}`), lets anyone call: dropping others then breaks no caller.
  const anonymous = b.size === 0 || b.has("anonymous");
  // Anonymous callers (no credentials at all) break when the first requirement arrives.
  if ((a.size === 0 || a.has("anonymous")) && !anonymous)
    out.emit("security-anonymous-access-removed", place, "anonymous calls no longer allowed");
  for (const [key, scopesBefore] of a) {
    if (key === "anonymous" && !anonymous) continue;
    const scopesAfter = b.get(key);
    if (!scopesAfter) {
      out.emit(
        anonymous ? "security-made-optional" : "security-requirement-removed",
        place,
        `security \`${key}\` removed${anonymous ? " (anonymous calls allowed)" : ""}`,
      );
      continue;
    }
    for (const [scheme, list] of scopesAfter) {
      const old = scopesBefore.get(scheme) ?? new Set();
      const added = [...list].filter((scope) => !old.has(scope));
      const removed = [...old].filter((scope) => !list.has(scope));
      if (added.length > 0) out.emit("security-scope-added", place, `${scheme}: scopes added: ${added.join(", ")}`);
      if (removed.length > 0)
        out.emit("security-scope-removed", place, `${scheme}: scopes removed: ${removed.join(", ")}`);
    }
  }
  for (const key of b.keys())
    if (!a.has(key)) out.emit("security-requirement-added", place, `security \`${key}\` added`);
});
