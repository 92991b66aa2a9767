/**
 * The checks: every kind of change the comparison can report, its stable id and its level. This table is the
 * single place that decides what fails the gate.
 *
 * Levels follow oasdiff's three: `error` (breaks clients that followed the old contract), `warning` (may break
 * some clients; the definition cannot tell), `info` (compatible, or documentation only).
 *
 * Most checks depend on the direction the data flows, because the same edit helps one side and hurts the other:
 * - `toService`: the partner writes, the service reads (operation requests; the partner's answer to a webhook).
 *   Its checks are named `request-…`.
 * - `toPartner`: the service writes, the partner reads (operation responses; webhook deliveries).
 *   Its checks are named `response-…`.
 * Narrowing what the reader accepts breaks writers; widening what the writer may send breaks readers.
 */

export type Level = "error" | "warning" | "info";
export type Flow = "toService" | "toPartner";

/** Most severe first. */
export const LEVELS: readonly Level[] = ["error", "warning", "info"];

export function atLeast(level: Level, threshold: Level): boolean {
  return LEVELS.indexOf(level) <= LEVELS.indexOf(threshold);
}

interface Rule {
  /** What the check reports, as a heading. */
  title: string;
  /** `document` checks have one id (the kind); `flow` checks one per direction (`request-…`, `response-…`). */
  scope: "document" | "flow";
  toService: Level;
  toPartner: Level;
  /** Documentation-only: a release with nothing else needs a patch bump only. */
  documentation?: boolean;
}

function doc(title: string, level: Level, documentation = false): Rule {
  return { title, scope: "document", toService: level, toPartner: level, documentation };
}
function both(title: string, level: Level, documentation = false): Rule {
  return { title, scope: "flow", toService: level, toPartner: level, documentation };
}
/** Breaks writers to the reader that now accepts less: an error in requests, information in responses. */
function narrowing(title: string): Rule {
  return { title, scope: "flow", toService: "error", toPartner: "info" };
}
/** Breaks readers of a writer that may now send more: information in requests, an error in responses. */
function widening(title: string): Rule {
  return { title, scope: "flow", toService: "info", toPartner: "error" };
}

export const RULES = {
  // Paths, operations and webhooks.
  "path-removed": doc("Path removed (an operation in it was neither deprecated nor alpha/draft)", "error"),
  "path-added": doc("Path added", "info"),
  "operation-removed": doc("Operation removed without deprecation", "error"),
  "operation-removed-after-deprecation": doc("Deprecated operation removed (no sunset, or after its sunset)", "info"),
  "operation-removed-before-sunset": doc("Deprecated operation removed before its x-sunset date", "error"),
  "operation-removed-unstable": doc("Operation with x-stability-level draft or alpha removed", "info"),
  "operation-added": doc("Operation added", "info"),
  "webhook-removed": doc("Webhook removed without deprecation", "error"),
  "webhook-removed-after-deprecation": doc("Deprecated webhook removed (no sunset, or after its sunset)", "info"),
  "webhook-added": doc("Webhook added", "info"),
  "operation-id-changed": doc("operationId changed (renames the generated client method)", "warning"),
  "operation-deprecated": doc("Operation deprecated", "info"),
  "operation-reactivated": doc("Operation no longer deprecated", "info"),
  "sunset-removed": doc("x-sunset removed from a deprecated operation or parameter", "error"),
  "sunset-earlier": doc("x-sunset of a deprecated operation or parameter moved earlier", "error"),
  "sunset-later": doc("x-sunset moved later", "info"),
  "sunset-invalid": doc("x-sunset is not a date (YYYY-MM-DD)", "error"),
  "stability-decreased": doc("x-stability-level decreased (stable → beta → alpha → draft)", "error"),
  "stability-increased": doc("x-stability-level increased", "info"),
  "stability-invalid": doc("x-stability-level is not one of draft, alpha, beta, stable", "error"),
  "tags-changed": doc("Operation tags changed", "info", true),

  // Security, servers and the document.
  "security-requirement-removed": doc("Security requirement alternative removed", "error"),
  "security-requirement-added": doc("Security requirement alternative added", "info"),
  "security-made-optional": doc("Security requirement removed where anonymous calls are now allowed", "info"),
  "security-anonymous-access-removed": doc("Security required where anonymous calls were allowed", "error"),
  "security-scope-added": doc("OAuth scope added to a security requirement", "error"),
  "security-scope-removed": doc("OAuth scope removed from a security requirement", "info"),
  "security-scheme-removed": doc("Security scheme component removed", "info"),
  "security-scheme-added": doc("Security scheme component added", "info"),
  "security-scheme-changed": doc("Security scheme component changed (flows, URLs, descriptions)", "info"),
  "security-scheme-wire-changed": doc(
    "Security scheme type, location, name, HTTP scheme or OpenID Connect URL changed",
    "error",
  ),
  "server-removed": doc("Server removed", "info"),
  "server-added": doc("Server added", "info"),
  "server-changed": doc("Server variables changed", "info"),
  "openapi-version-changed": doc("OpenAPI version changed", "info"),
  "extension-changed": both("Vendor extension (x-) changed", "info", true),
  "documentation-changed": both("Documentation changed (description, summary, examples, …)", "info", true),
  "version-changed": doc("info.version changed", "info", true),
  "keyword-changed": both("Keyword the gate does not model changed (may break; cannot be decided)", "warning"),

  // Parameters and headers (operation parameters flow to the service; response and webhook headers to the partner).
  "parameter-removed": both("Parameter or header removed", "error"),
  "parameter-removed-after-deprecation": both("Deprecated parameter removed (no sunset, or after its sunset)", "info"),
  "parameter-removed-before-sunset": both("Deprecated parameter removed before its x-sunset date", "error"),
  "parameter-added-required": narrowing("Required parameter or header added"),
  "parameter-added-optional": both("Optional parameter or header added", "info"),
  "parameter-became-required": narrowing("Parameter or header became required"),
  "parameter-became-optional": widening("Parameter or header became optional"),
  "parameter-serialization-changed": both(
    "Parameter style, or explode of an array or object, changed (the wire format)",
    "error",
  ),
  "parameter-reserved-disallowed": narrowing(
    "Parameter no longer accepts reserved characters unencoded (allowReserved)",
  ),
  "parameter-reserved-allowed": widening("Parameter now accepts reserved characters unencoded (allowReserved)"),
  "parameter-deprecated": both("Parameter deprecated", "info", true),
  "header-values-changed": both(
    "A response header's range of values changed (constraint, enum, pattern); its type and presence are checked apart",
    "info",
  ),

  // Bodies, media types and status codes.
  "body-removed": both("Body removed", "error"),
  "body-added-required": narrowing("Required body added"),
  "body-added-optional": both("Optional body added", "info"),
  "body-became-required": narrowing("Body became required"),
  "body-became-optional": widening("Body became optional"),
  "media-type-removed": both("Media type removed", "error"),
  "media-type-added": both("Media type added", "info"),
  "media-type-widened": widening("Media type replaced by a wider range (application/json → application/*)"),
  "media-type-narrowed": narrowing("Media type replaced by a narrower one (application/* → application/json)"),
  "media-type-parameters-added": narrowing(
    "Media type parameter added (application/json → application/json; charset=utf-8)",
  ),
  "media-type-parameters-removed": widening("Media type parameter removed"),
  "media-type-parameters-changed": both("Media type parameter value changed (charset=utf-8 → charset=utf-16)", "error"),
  "success-status-removed": both("Success (2xx) status removed", "error"),
  "status-removed": both("Non-success status removed", "info"),
  "status-added": both("Status added", "info"),

  // Schemas: properties.
  "required-field-removed": {
    title: "Required field removed or renamed",
    scope: "flow",
    toService: "error",
    toPartner: "error",
  },
  "optional-field-removed": {
    title: "Optional field removed or renamed",
    scope: "flow",
    toService: "error",
    toPartner: "info",
  },
  "field-removed-after-deprecation": both("Deprecated field removed (no sunset, or after its sunset)", "info"),
  "field-added-required": narrowing("Field added as required"),
  "field-added-optional": both("Optional field added", "info"),
  "field-became-required": narrowing("Field became required"),
  "field-became-optional": widening("Field became optional"),
  "ignored-field-changed": both(
    "Change to a read-only field in a request or a write-only field in a response (that side ignores it)",
    "info",
  ),
  "mutability-changed": both("readOnly or writeOnly changed", "info"),
  "required-field-no-longer-write-only": {
    title: "Required field no longer write-only (responses must now carry it)",
    scope: "flow",
    toService: "info",
    toPartner: "error",
  },

  // Schemas: types and values.
  "type-changed": both("Type changed", "error"),
  "type-narrowed": narrowing("Type narrowed (for example number → integer)"),
  "type-widened": widening("Type widened (for example integer → number)"),
  "nullable-added": widening("null now allowed"),
  "nullable-removed": narrowing("null no longer allowed"),
  "format-changed": both("Format changed", "error"),
  "format-added": narrowing("Format added"),
  "format-removed": widening("Format removed or widened (int32 → int64)"),
  "enum-value-removed": narrowing("Enum value removed"),
  // An error, as oasdiff 1.32 and later rate response-property-enum-value-added: readers that switch over
  // an enum without a default break on the new value. x-extensible-enum is the way to say "may grow".
  "enum-value-added": {
    title: "Enum value added (readers may not handle it)",
    scope: "flow",
    toService: "info",
    toPartner: "error",
  },
  "enum-added": narrowing("Enum added (the field was free before)"),
  "enum-removed": {
    title: "Enum removed (any value allowed now)",
    scope: "flow",
    toService: "info",
    toPartner: "warning",
  },
  "extensible-enum-value-removed": narrowing("x-extensible-enum value removed"),
  "extensible-enum-value-added": both("x-extensible-enum value added (readers must handle unknown values)", "info"),
  "const-changed": both("Constant value changed", "error"),
  "const-added": narrowing("Constant added"),
  "const-removed": widening("Constant removed"),
  "default-changed": both("Default value changed", "info"),

  // Schemas: constraints.
  "constraint-narrowed": narrowing("Constraint narrowed (length, range, items, properties, uniqueItems, multipleOf)"),
  "constraint-widened": widening("Constraint widened"),
  "constraint-changed": both("Constraint changed in neither direction (multipleOf, dependentRequired)", "error"),
  "pattern-added": narrowing("Pattern added"),
  "pattern-removed": widening("Pattern removed, or widened to accept any string"),
  "pattern-changed": both("Pattern changed", "error"),
  "items-narrowed": narrowing("Array items or tuple (prefixItems, contains) narrowed"),
  "items-widened": widening("Array items or tuple (prefixItems, contains) widened"),
  // An error both ways: a tuple entry differing from `items` narrows or widens by position (oasdiff: warning).
  "prefix-items-changed": both("prefixItems entry added or removed where it differs from items", "error"),
  "properties-narrowed": narrowing(
    "Additional properties narrowed (additionalProperties, patternProperties, propertyNames, unevaluated…)",
  ),
  "properties-widened": widening("Additional properties widened"),
  "closed-object-opened": both(
    "additionalProperties: false removed (undeclared properties allowed; readers ignore them, as an added optional field)",
    "info",
  ),
  "content-encoding-changed": both("contentMediaType or contentEncoding changed", "error"),

  // Schemas: composition.
  "variant-removed": narrowing("oneOf/anyOf variant removed"),
  "variant-added": widening("oneOf/anyOf variant added"),
  "allof-member-added": narrowing("allOf member added"),
  "allof-member-removed": widening("allOf member removed"),
  "conditional-changed": both("Conditional rule (if/then/else) condition changed", "error"),
  "conditional-added": narrowing("Conditional rule (if/then/else) or dependent schema added"),
  "conditional-removed": widening("Conditional rule (if/then/else) or dependent schema removed"),
  "discriminator-changed": both("Discriminator changed", "info"),
} satisfies Record<string, Rule>;

export type ChangeKind = keyof typeof RULES;

/** The check id of a kind of change in a direction: `path-removed`, `request-field-added-required`, … */
export function checkId(kind: ChangeKind, flow: Flow): string {
  const rule: Rule = RULES[kind];
  if (rule.scope === "document") return kind;
  return `${flow === "toService" ? "request" : "response"}-${kind}`;
}

export interface Check {
  id: string;
  kind: ChangeKind;
  level: Level;
  title: string;
  documentation: boolean;
}

/** Every check with its default level, in table order (a flow check gives its request and response ids). */
export function listChecks(): Check[] {
  const checks: Check[] = [];
  for (const [kind, rule] of Object.entries(RULES) as [ChangeKind, Rule][]) {
    const flows: Flow[] = rule.scope === "document" ? ["toPartner"] : ["toService", "toPartner"];
    for (const flow of flows) {
      checks.push({
        id: checkId(kind, flow),
        kind,
        level: rule[flow],
        title: rule.title,
        documentation: rule.documentation === true,
      });
    }
  }
  return checks;
}

const CHECKS_BY_ID = new Map(listChecks().map((check) => [check.id, check]));

export function findCheck(id: string): Check | undefined {
  return CHECKS_BY_ID.get(id);
}

export function defaultLevel(kind: ChangeKind, flow: Flow): Level {
  return RULES[kind][flow];
}

export function isDocumentation(kind: ChangeKind): boolean {
  const rule: Rule = RULES[kind];
  return rule.documentation === true;
}
