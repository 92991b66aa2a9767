/**
 * The classification rules: every kind of change the comparison can report, and its class for each
 * direction of data flow. This table is the single place that decides what is breaking.
 *
 * Direction matters because the same edit helps one side and hurts the other:
 * - `toService`: the partner writes, the service reads (operation requests; the partner's answer to a webhook).
 * - `toPartner`: the service writes, the partner reads (operation responses; webhook deliveries).
 * Narrowing what the reader accepts breaks writers; widening what the writer may send breaks readers.
 */

export type ChangeClass = "breaking" | "compatible" | "documentation";
export type Flow = "toService" | "toPartner";

interface Rule {
  /** Heading used in the readable and Markdown outputs. */
  title: string;
  toService: ChangeClass;
  toPartner: ChangeClass;
}

const B = "breaking" as const;
const C = "compatible" as const;
const D = "documentation" as const;

function same(title: string, cls: ChangeClass): Rule {
  return { title, toService: cls, toPartner: cls };
}
/** Breaks the service's readers' writers (requests) but not partners reading responses, or the reverse. */
function narrowing(title: string): Rule {
  return { title, toService: B, toPartner: C };
}
function widening(title: string): Rule {
  return { title, toService: C, toPartner: B };
}

export const RULES = {
  // The document and its operations.
  "path-removed": same("Path removed", B),
  "path-added": same("Path added", C),
  "operation-removed": same("Operation removed", B),
  "operation-added": same("Operation added", C),
  "webhook-removed": same("Webhook removed", B),
  "webhook-added": same("Webhook added", C),
  "operation-id-changed": same("operationId changed (renames the generated client method)", B),
  "security-changed": same("Security requirement changed", B),
  "security-scheme-removed": same("Security scheme removed", B),
  "security-scheme-added": same("Security scheme added", C),
  "security-scheme-changed": same("Security scheme changed", B),
  "server-removed": same("Server removed", B),
  "server-added": same("Server added", C),
  "server-changed": same("Server address or variables changed", B),
  "openapi-version-changed": same("OpenAPI version changed", C),
  "extension-changed": same("Vendor extension (x-) changed", C),
  "keyword-changed": same("Other keyword changed (not classified more finely, so treated as breaking)", B),
  "documentation-changed": same("Documentation changed", D),
  "version-changed": same("info.version changed", D),

  // Parameters and headers (request parameters flow toService, webhook and response headers toPartner).
  "parameter-removed": same("Parameter or header removed", B),
  "parameter-added-required": narrowing("Required parameter or header added"),
  "parameter-added-optional": same("Optional parameter or header added", C),
  "parameter-became-required": narrowing("Parameter or header became required"),
  "parameter-became-optional": widening("Parameter or header became optional"),
  "parameter-serialization-changed": same("Parameter serialization changed", B),

  // Bodies, media types and status codes.
  "body-removed": same("Body removed", B),
  "body-added-required": narrowing("Required body added"),
  "body-added-optional": same("Optional body added", C),
  "body-became-required": narrowing("Body became required"),
  "body-became-optional": widening("Body became optional"),
  "media-type-removed": same("Media type removed", B),
  "media-type-added": same("Media type added", C),
  "success-status-removed": same("Success status removed", B),
  "status-removed": same("Non-success status removed", C),
  "status-added": same("Status added", C),

  // Schemas.
  "field-removed": same("Field removed or renamed", B),
  "field-added-required": narrowing("Field added as required"),
  "field-added-optional": same("Optional field added", C),
  "field-became-required": narrowing("Field became required"),
  "field-became-optional": widening("Field became optional"),
  "type-changed": same("Type changed", B),
  "type-narrowed": narrowing("Type narrowed"),
  "type-widened": widening("Type widened (for example null allowed)"),
  "enum-value-removed": narrowing("Enum value removed"),
  "enum-value-added": widening("Enum value added (readers may not handle it)"),
  "const-changed": same("Constant value changed", B),
  "constraint-narrowed": narrowing("Constraint narrowed (pattern, length, range, format, enum or const added)"),
  "constraint-widened": widening("Constraint widened"),
  "constraint-changed": same("Constraint changed (pattern, format or multipleOf)", B),
  "variant-removed": narrowing("oneOf/anyOf variant removed"),
  "variant-added": widening("oneOf/anyOf variant added"),
  "conditional-changed": same("Conditional rule (if/then/else) changed", B),
  "conditional-added": narrowing("Conditional rule (if/then/else) added"),
  "conditional-removed": widening("Conditional rule (if/then/else) removed"),
  "default-changed": { title: "Default value changed", toService: B, toPartner: D },
} satisfies Record<string, Rule>;

export type ChangeKind = keyof typeof RULES;

export function classify(kind: ChangeKind, flow: Flow): ChangeClass {
  return RULES[kind][flow];
}

export const CLASS_ORDER: ChangeClass[] = ["breaking", "compatible", "documentation"];

export const CLASS_TITLES: Record<ChangeClass, string> = {
  breaking: "Breaking",
  compatible: "Compatible",
  documentation: "Documentation only",
};
