/** The fixture corpus (support/corpus.ts) for types and formats, nullability, enums, composition and the keywords beyond the basics. */
import { type Case, corpusSuite, input, item, schemas } from "./support/corpus.ts";

const families: Record<string, Case[]> = {
  "types and formats": [
    {
      name: "a response type changed (number → string)",
      mutate: (d) => (item(d).size = { type: "string" }),
      check: "response-type-changed",
      breaking: true,
    },
    {
      name: "a response type narrowed (number → integer)",
      mutate: (d) => (item(d).size = { type: "integer" }),
      check: "response-type-narrowed",
      breaking: false,
    },
    {
      name: "a request type narrowed (integer → string)",
      mutate: (d) => (input(d).size = { type: "string" }),
      check: "request-type-changed",
      breaking: true,
    },
    {
      name: "a request type widened (integer → number)",
      mutate: (d) => (input(d).size = { type: "number", minimum: 0 }),
      check: "request-type-widened",
      breaking: false,
    },
    {
      name: "a request format changed (int32 → uuid)",
      mutate: (d) => (input(d).size.format = "uuid"),
      check: "request-format-changed",
      breaking: true,
    },
    {
      name: "a request format widened (int32 → int64)",
      mutate: (d) => (input(d).size.format = "int64"),
      check: "request-format-removed",
      breaking: false,
    },
  ],
  nullability: [
    {
      name: "a response field became nullable (type array)",
      mutate: (d) => (item(d).name.type = ["string", "null"]),
      check: "response-nullable-added",
      breaking: true,
    },
    {
      name: "a request field became nullable (oneOf null wrap around a $ref: nothing inside the component changed)",
      mutate: (d) => {
        schemas(d).ItemInput.properties.owner = { oneOf: [{ type: "null" }, { $ref: "#/components/schemas/Owner" }] };
        schemas(d).ItemInput.properties.owner2 = { $ref: "#/components/schemas/Owner" };
      },
      base: (d) => {
        schemas(d).ItemInput.properties.owner = { $ref: "#/components/schemas/Owner" };
        schemas(d).ItemInput.properties.owner2 = { $ref: "#/components/schemas/Owner" };
      },
      check: "request-nullable-added",
      breaking: false,
    },
    {
      name: "a request field no longer nullable (3.0 nullable: true removed)",
      base: (d) => {
        d.openapi = "3.0.3";
        input(d).note.nullable = true;
      },
      mutate: (d) => delete input(d).note.nullable,
      check: "request-nullable-removed",
      breaking: true,
    },
    {
      name: "a request field became nullable (3.0 nullable: true)",
      base: (d) => (d.openapi = "3.0.3"),
      mutate: (d) => (input(d).note.nullable = true),
      check: "request-nullable-added",
      breaking: false,
    },
  ],
  enums: [
    {
      name: "a request enum value removed",
      mutate: (d) => (input(d).kind.enum = ["a"]),
      check: "request-enum-value-removed",
      breaking: true,
    },
    {
      name: "a response enum value added (oasdiff 1.32+: error)",
      mutate: (d) => item(d).kind.enum.push("c"),
      check: "response-enum-value-added",
      breaking: true,
    },
    {
      name: "a request field became an enum",
      mutate: (d) => (input(d).note.enum = ["x"]),
      check: "request-enum-added",
      breaking: true,
    },
    {
      name: "an x-extensible-enum value removed from a request",
      base: (d) => (input(d).note["x-extensible-enum"] = ["x", "y"]),
      mutate: (d) => (input(d).note["x-extensible-enum"] = ["x"]),
      check: "request-extensible-enum-value-removed",
      breaking: true,
    },
    {
      name: "an x-extensible-enum value added to a response",
      base: (d) => (item(d).note["x-extensible-enum"] = ["x"]),
      mutate: (d) => (item(d).note["x-extensible-enum"] = ["x", "y"]),
      check: "response-extensible-enum-value-added",
      breaking: false,
    },
  ],
  "length, range and pattern": [
    {
      name: "a request maxLength lowered",
      mutate: (d) => (input(d).name.maxLength = 32),
      check: "request-constraint-narrowed",
      breaking: true,
    },
    {
      name: "a request maxLength raised",
      mutate: (d) => (input(d).name.maxLength = 128),
      check: "request-constraint-widened",
      breaking: false,
    },
    {
      name: "a response maxLength raised",
      mutate: (d) => (item(d).name.maxLength = 128),
      check: "response-constraint-widened",
      breaking: true,
    },
    {
      name: "a response maxLength lowered",
      mutate: (d) => (item(d).name.maxLength = 32),
      check: "response-constraint-narrowed",
      breaking: false,
    },
    {
      name: "a request minimum made exclusive (3.0 boolean exclusiveMinimum)",
      base: (d) => (d.openapi = "3.0.3"),
      mutate: (d) => (input(d).size.exclusiveMinimum = true),
      check: "request-constraint-narrowed",
      breaking: true,
    },
    {
      name: "3.0 exclusiveMinimum rewritten as 3.1's numeric form (same bound)",
      base: (d) => Object.assign(input(d).size, { minimum: 0, exclusiveMinimum: true }),
      mutate: (d) => {
        delete input(d).size.minimum;
        input(d).size.exclusiveMinimum = 0;
      },
      check: "none",
      breaking: false,
    },
    {
      name: "a request pattern changed",
      mutate: (d) => (input(d).name.pattern = "^[a-z0-9]+$"),
      check: "request-pattern-changed",
      breaking: true,
    },
    {
      name: "a request pattern widened to any string",
      mutate: (d) => (input(d).name.pattern = ".*"),
      check: "request-pattern-removed",
      breaking: false,
    },
    {
      name: "a request maxItems lowered",
      mutate: (d) => (input(d).tags.maxItems = 5),
      check: "request-constraint-narrowed",
      breaking: true,
    },
  ],
  composition: [
    {
      name: "a response oneOf variant added",
      base: (d) => (item(d).owner = { oneOf: [{ $ref: "#/components/schemas/Owner" }, { type: "string" }] }),
      mutate: (d) => item(d).owner.oneOf.push({ type: "integer" }),
      check: "response-variant-added",
      breaking: true,
    },
    {
      name: "a request oneOf variant added",
      base: (d) => (input(d).owner = { oneOf: [{ $ref: "#/components/schemas/Owner" }, { type: "string" }] }),
      mutate: (d) => input(d).owner.oneOf.push({ type: "integer" }),
      check: "request-variant-added",
      breaking: false,
    },
    {
      name: "a request allOf member added",
      base: (d) => (schemas(d).ItemInput = { allOf: [schemas(d).ItemInput] }),
      mutate: (d) => schemas(d).ItemInput.allOf.push({ $ref: "#/components/schemas/Owner" }),
      check: "request-allof-member-added",
      breaking: true,
    },
    {
      name: "a response allOf member added",
      base: (d) => (schemas(d).Item = { allOf: [schemas(d).Item] }),
      mutate: (d) => schemas(d).Item.allOf.push({ $ref: "#/components/schemas/Owner" }),
      check: "response-allof-member-added",
      breaking: false,
    },
    {
      name: "a discriminator added",
      base: (d) => (item(d).owner = { oneOf: [{ $ref: "#/components/schemas/Owner" }, { type: "string" }] }),
      mutate: (d) => (item(d).owner.discriminator = { propertyName: "role" }),
      check: "response-discriminator-changed",
      breaking: false,
    },
  ],
  "keywords beyond the basics": [
    {
      name: "request propertyNames added",
      mutate: (d) => (schemas(d).ItemInput.propertyNames = { pattern: "^[a-z]+$" }),
      check: "request-properties-narrowed",
      breaking: true,
    },
    {
      name: "request propertyNames removed",
      base: (d) => (schemas(d).ItemInput.propertyNames = { pattern: "^[a-z]+$" }),
      mutate: (d) => delete schemas(d).ItemInput.propertyNames,
      check: "request-properties-widened",
      breaking: false,
    },
    {
      name: "request dependentRequired added",
      mutate: (d) => (schemas(d).ItemInput.dependentRequired = { size: ["kind"] }),
      check: "request-constraint-narrowed",
      breaking: true,
    },
    {
      name: "response dependentRequired added",
      mutate: (d) => (schemas(d).Item.dependentRequired = { size: ["kind"] }),
      check: "response-constraint-narrowed",
      breaking: false,
    },
    {
      name: "a response prefixItems entry added (the position was any value; oasdiff warns both ways)",
      base: (d) => (item(d).pair = { type: "array", prefixItems: [{ type: "string" }] }),
      mutate: (d) => item(d).pair.prefixItems.push({ type: "integer" }),
      check: "response-prefix-items-changed",
      breaking: true,
    },
    {
      name: "a request prefixItems entry removed (the position falls back to items: string)",
      base: (d) => (input(d).pair = { type: "array", items: { type: "string" }, prefixItems: [{ type: "integer" }] }),
      mutate: (d) => input(d).pair.prefixItems.pop(),
      check: "request-prefix-items-changed",
      breaking: true,
    },
    {
      name: "a prefixItems entry repeating items added (every array valid before is valid now)",
      base: (d) => (input(d).pair = { type: "array", items: { type: "string" } }),
      mutate: (d) => (input(d).pair.prefixItems = [{ type: "string" }]),
      check: "none",
      breaking: false,
    },
    {
      name: "a request contains added",
      mutate: (d) => (input(d).tags.contains = { const: "main" }),
      check: "request-items-narrowed",
      breaking: true,
    },
    {
      name: "a response object opened (additionalProperties: false removed: like optional fields added)",
      base: (d) => (schemas(d).Item.additionalProperties = false),
      mutate: (d) => delete schemas(d).Item.additionalProperties,
      check: "response-closed-object-opened",
      breaking: false,
    },
    {
      name: "a request object closed (additionalProperties: false added; oasdiff has no check for it)",
      mutate: (d) => (schemas(d).ItemInput.additionalProperties = false),
      check: "request-properties-narrowed",
      breaking: true,
    },
    {
      name: "request patternProperties removed",
      base: (d) => (schemas(d).ItemInput.patternProperties = { "^x-": { type: "string" } }),
      mutate: (d) => delete schemas(d).ItemInput.patternProperties,
      check: "request-properties-widened",
      breaking: false,
    },
    {
      name: "xml changed (documentation only)",
      mutate: (d) => (schemas(d).Item.xml = { name: "item" }),
      check: "response-documentation-changed",
      breaking: false,
    },
    {
      name: "a property inside `not` widened (what is excluded grows: narrows the request, reported as a request change)",
      base: (d) => (schemas(d).ItemInput.not = { properties: { note: { type: "string", maxLength: 5 } } }),
      mutate: (d) => (schemas(d).ItemInput.not = { properties: { note: { type: "string", maxLength: 10 } } }),
      check: "request-constraint-narrowed",
      breaking: true,
    },
  ],
};

corpusSuite(families);
