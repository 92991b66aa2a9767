/** Security: the requirements an operation asks for (alternatives, scopes) and the scheme components. */
import { code, stable } from "../pairs.ts";
import { DOC_KEYWORDS, isObject, type Json, type JsonObject } from "../resolve.ts";
import { defineFamily } from "./define.ts";

const family = defineFamily("security", import.meta.url);
export default family;

/** What clients put on the wire, or where they get their token: changing it locks every caller out. */
const WIRE_KEYS = ["type", "in", "name", "scheme", "openIdConnectUrl"];

family.detector("schemes", ["scheme"], ({ name, place, before, after }, out) => {
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

family.detector("requirements", ["security"], ({ where, before, after }, out) => {
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

// scope | kind | detector | level (request, response) | title | oasdiff's check and level (request, response)
family.table(`
  doc | security-requirement-removed      | requirements | error | Security requirement alternative removed | api-security-removed error
  doc | security-requirement-added        | requirements | info  | Security requirement alternative added | api-security-added info
  doc | security-made-optional            | requirements | info  | Security requirement removed where anonymous calls are now allowed | -
  doc | security-anonymous-access-removed | requirements | error | Security required where anonymous calls were allowed | api-security-added info
  doc | security-scope-added              | requirements | error | OAuth scope added to a security requirement | api-security-scope-added error
  doc | security-scope-removed            | requirements | info  | OAuth scope removed from a security requirement | api-security-scope-removed info
  doc | security-scheme-removed           | schemes      | info  | Security scheme component removed | api-components-security-removed info
  doc | security-scheme-added             | schemes      | info  | Security scheme component added | api-components-security-added info
  doc | security-scheme-changed           | schemes      | info  | Security scheme component changed (flows, URLs, descriptions) | api-components-security-oauth-token-url-updated info
  doc | security-scheme-wire-changed      | schemes      | error | Security scheme type, location, name, HTTP scheme or OpenID Connect URL changed | api-components-security-type-updated info
`);
