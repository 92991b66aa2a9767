/**
 * Every example of a bundled contract, with the schema it must satisfy and the generated TypeScript type it must
 * compile as: a request body example as its operation's request body type, a response example as that status's
 * response type, a webhook example as the event's payload type, a parameter's, a header's and a component schema's
 * examples as theirs. `checkExampleTypes()` writes one module per contract from the bundle (each example a typed
 * `const`) and compiles it against the contract's generated `.d.ts`: a type that rejects what the contract's own
 * examples send (a default typed as required, say) is an error naming the example.
 */

import { HTTP_METHODS } from "partner-api-client";
import { followRefs, isObject, type JsonObject, pointerSegment } from "partner-api-devkit/cli";
import { type ModuleSource, typecheckModules } from "./typecheck.ts";

export interface ContractExample {
  /** What a reader would call it: `POST /v1/companies request body, example cardOnlyCompany`. */
  label: string;
  /** Where its value is in the bundle (JSON pointer). */
  pointer: string;
  /** The schema it must satisfy (JSON pointer). */
  schema: string;
  /** The generated type it must compile as, over the `.d.ts`'s `paths`, `webhooks` and `components`. */
  type: string;
  value: unknown;
  /** A named example of an operation's request body: the operation and the example's name. */
  request?: { operationId: string; name: string };
}

export interface ContractExamples {
  examples: ContractExample[];
  /** Examples where no generated type says what they are (nested schemas, callbacks, external values): pointers. */
  unchecked: string[];
}

const SUBSCHEMA_KEYS = [
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
];
const SUBSCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SUBSCHEMA_MAPS = ["properties", "patternProperties", "dependentSchemas", "$defs"];

const key = (name: string) => `[${JSON.stringify(name)}]`;
const hasExample = (node: unknown) => JSON.stringify(node ?? null).includes('"example');

/** Walks one bundled document, collecting its examples (with their types) and those whose type cannot be named. */
class ExampleCollector {
  readonly examples: ContractExample[] = [];
  readonly unchecked: string[] = [];

  private readonly document: JsonObject;

  constructor(document: JsonObject) {
    this.document = document;
  }

  /** A schema's `example` and `examples` (typed only at the top), then every subschema's (untyped). */
  schema(schema: unknown, pointer: string, type: string | undefined, label: string): void {
    if (!isObject(schema)) return;
    const values: [string, unknown][] = Array.isArray(schema.examples)
      ? schema.examples.map((value, index) => [`examples/${index}`, value])
      : [];
    if ("example" in schema) values.push(["example", schema.example]);
    for (const [at, value] of values) {
      // A schema inside another has no generated type of its own to compile against.
      if (type === undefined) this.unchecked.push(`${pointer}/${at}`);
      else
        this.examples.push({
          label: `${label}, schema ${at}`,
          pointer: `${pointer}/${at}`,
          schema: pointer,
          type,
          value,
        });
    }
    for (const name of SUBSCHEMA_KEYS) this.schema(schema[name], `${pointer}/${name}`, undefined, label);
    for (const name of SUBSCHEMA_LISTS) {
      const list = schema[name];
      if (!Array.isArray(list)) continue;
      for (const [index, sub] of list.entries()) this.schema(sub, `${pointer}/${name}/${index}`, undefined, label);
    }
    for (const name of SUBSCHEMA_MAPS) {
      const map = schema[name];
      if (isObject(map))
        for (const [property, sub] of Object.entries(map))
          this.schema(sub, `${pointer}/${name}/${pointerSegment(property)}`, undefined, label);
    }
  }

  /** A Media Type, Parameter or Header: its `example`, its named `examples`, its schema's, its content's. */
  holder(holder: unknown, pointer: string, type: string, label: string): void {
    if (!isObject(holder) || typeof holder.$ref === "string") return; // a $ref is checked where it is defined
    const schema = `${pointer}/schema`;
    if ("example" in holder)
      this.examples.push({
        label: `${label}, example`,
        pointer: `${pointer}/example`,
        schema,
        type,
        value: holder.example,
      });
    if (isObject(holder.examples)) {
      for (const [name, raw] of Object.entries(holder.examples)) {
        const at = `${pointer}/examples/${pointerSegment(name)}`;
        const example = followRefs(this.document, raw);
        if (isObject(example) && "value" in example)
          this.examples.push({ label: `${label}, example ${name}`, pointer: at, schema, type, value: example.value });
        else this.unchecked.push(at);
      }
    }
    this.schema(holder.schema, schema, type, label);
    if (isObject(holder.content))
      for (const [mediaType, media] of Object.entries(holder.content))
        this.holder(media, `${pointer}/content/${pointerSegment(mediaType)}`, type, label);
  }

  /** A request body's or a response's content, media type by media type. */
  content(owner: unknown, pointer: string, type: string, label: string): void {
    if (!isObject(owner) || typeof owner.$ref === "string" || !isObject(owner.content)) return;
    for (const [mediaType, media] of Object.entries(owner.content))
      this.holder(
        media,
        `${pointer}/content/${pointerSegment(mediaType)}`,
        `${type}["content"]${key(mediaType)}`,
        label,
      );
  }

  parameters(list: unknown, pointer: string, type: string, label: string): void {
    if (!Array.isArray(list)) return;
    list.forEach((parameter, index) => {
      if (!isObject(parameter) || typeof parameter.$ref === "string") return;
      const name = String(parameter.name);
      const location = String(parameter.in);
      this.holder(
        parameter,
        `${pointer}/parameters/${index}`,
        `NonNullable<${type}["parameters"]${key(location)}>${key(name)}`,
        `${label} ${location} parameter ${name}`,
      );
    });
  }

  response(response: unknown, pointer: string, type: string, label: string): void {
    if (!isObject(response) || typeof response.$ref === "string") return;
    this.content(response, pointer, type, label);
    if (isObject(response.headers))
      for (const [name, header] of Object.entries(response.headers))
        this.holder(
          header,
          `${pointer}/headers/${pointerSegment(name)}`,
          `${type}["headers"]${key(name)}`,
          `${label} header ${name}`,
        );
  }

  /** Every path item of `paths` or `webhooks`: its parameters, then each operation's. */
  pathItems(root: "paths" | "webhooks"): void {
    const items = this.document[root];
    if (!isObject(items)) return;
    for (const [itemKey, item] of Object.entries(items)) {
      const itemPointer = `#/${root}/${pointerSegment(itemKey)}`;
      if (!isObject(item)) continue;
      if (typeof item.$ref === "string") {
        if (hasExample(followRefs(this.document, item))) this.unchecked.push(itemPointer);
        continue;
      }
      const itemType = `${root}${key(itemKey)}`;
      this.parameters(item.parameters, itemPointer, itemType, root === "paths" ? itemKey : `webhook ${itemKey}`);
      for (const method of HTTP_METHODS) {
        const operation = item[method];
        if (isObject(operation)) this.operation(root, itemKey, method, operation, `${itemPointer}/${method}`);
      }
    }
  }

  /** One operation (or webhook): parameters, request body (naming its operation), responses; callbacks unchecked. */
  operation(root: "paths" | "webhooks", itemKey: string, method: string, operation: JsonObject, pointer: string): void {
    const type = `${root}${key(itemKey)}${key(method)}`;
    const label = root === "paths" ? `${method.toUpperCase()} ${itemKey}` : `webhook ${itemKey}`;
    this.parameters(operation.parameters, pointer, type, label);
    const before = this.examples.length;
    this.content(
      operation.requestBody,
      `${pointer}/requestBody`,
      `NonNullable<${type}["requestBody"]>`,
      root === "paths" ? `${label} request body` : label,
    );
    if (root === "paths" && typeof operation.operationId === "string")
      for (const example of this.examples.slice(before)) {
        const named = /\/examples\/([^/]+)$/.exec(example.pointer);
        if (named)
          example.request = {
            operationId: operation.operationId,
            name: named[1]!.replace(/~1/g, "/").replace(/~0/g, "~"),
          };
      }
    if (isObject(operation.responses))
      for (const [status, response] of Object.entries(operation.responses))
        this.response(
          response,
          `${pointer}/responses/${pointerSegment(status)}`,
          `${type}["responses"]${key(status)}`,
          `${label} ${status}`,
        );
    if (hasExample(operation.callbacks)) this.unchecked.push(`${pointer}/callbacks`);
  }

  /** The components, kind by kind; path items there are unchecked (no generated type names them). */
  components(): void {
    const components = isObject(this.document.components) ? this.document.components : {};
    const each = (kind: string, visit: (value: unknown, pointer: string, type: string, name: string) => void) => {
      const map = components[kind];
      if (isObject(map))
        for (const [name, value] of Object.entries(map))
          visit(value, `#/components/${kind}/${pointerSegment(name)}`, `components${key(kind)}${key(name)}`, name);
    };
    each("schemas", (schema, pointer, type, name) => this.schema(schema, pointer, type, `schema ${name}`));
    each("parameters", (parameter, pointer, type, name) => this.holder(parameter, pointer, type, `parameter ${name}`));
    each("headers", (header, pointer, type, name) => this.holder(header, pointer, type, `header ${name}`));
    each("requestBodies", (body, pointer, type, name) => this.content(body, pointer, type, `request body ${name}`));
    each("responses", (response, pointer, type, name) => this.response(response, pointer, type, `response ${name}`));
    each("pathItems", (item, pointer) => {
      if (hasExample(item)) this.unchecked.push(pointer);
    });
  }
}

/** Every example of a bundled OpenAPI 3.1 document, and the ones whose type cannot be named. */
export function contractExamples(document: JsonObject): ContractExamples {
  const collector = new ExampleCollector(document);
  for (const root of ["paths", "webhooks"] as const) collector.pathItems(root);
  collector.components();
  return { examples: collector.examples, unchecked: collector.unchecked };
}

export interface ExampleSpan {
  example: ContractExample;
  /** Its lines in the module, 1-based, inclusive. */
  from: number;
  to: number;
}

/** The module that compiles `examples` against the types imported from `typesModule`: one typed const each. */
export function exampleTypesModule(
  name: string,
  examples: readonly ContractExample[],
  typesModule: string,
): { module: ModuleSource; spans: ExampleSpan[] } {
  const lines = [
    `// Generated from the bundle by scripts/lib/example-types.ts: each example, typed as the contract says it is.`,
    `import type { components, paths, webhooks } from ${JSON.stringify(typesModule)};`,
  ];
  const spans: ExampleSpan[] = [];
  examples.forEach((example, index) => {
    lines.push("", `// ${example.label} (${example.pointer})`);
    const from = lines.length + 1;
    lines.push(
      ...`export const example${index}: ${example.type} = ${JSON.stringify(example.value, null, 2)};`.split("\n"),
    );
    spans.push({ example, from, to: lines.length });
  });
  const requests = new Map<string, string[]>();
  examples.forEach(({ request }, index) => {
    if (!request) return;
    const entries = requests.get(request.operationId) ?? [];
    entries.push(`    ${JSON.stringify(request.name)}: example${index},`);
    requests.set(request.operationId, entries);
  });
  if (requests.size > 0) {
    lines.push(
      "",
      "/** The named examples of each operation's request body, by operationId and name: what tests send. */",
    );
    lines.push("export const requestExamples = {");
    for (const [operationId, entries] of requests)
      lines.push(`  ${JSON.stringify(operationId)}: {`, ...entries, "  },");
    lines.push("} as const;");
  }
  lines.push("");
  return { module: { name, source: lines.join("\n") }, spans };
}

export interface ContractTypes {
  /** A short name for messages and the module (`openapi`, `sandbox`). */
  name: string;
  document: JsonObject;
  /** The generated `.d.ts` of the document. */
  typesPath: string;
}

export interface ExampleTypeError {
  contract: string;
  /** The example's label and pointer, or `(module)` for an error outside every example (an import). */
  example: string;
  message: string;
}

/** Compiles every example of each contract against its types, in one program; the errors (none: all compile). */
export async function checkExampleTypes(contracts: readonly ContractTypes[]): Promise<ExampleTypeError[]> {
  const built = contracts.map((contract) => {
    const specifier = `${contract.name}-contract-types`;
    const { examples } = contractExamples(contract.document);
    return { contract, specifier, ...exampleTypesModule(`${contract.name}-examples`, examples, specifier) };
  });
  const errors = await typecheckModules(
    built.map(({ module }) => module),
    { packages: Object.fromEntries(built.map(({ specifier, contract }) => [specifier, contract.typesPath])) },
  );
  return errors.map((error) => {
    const owner = built.find(({ module }) => module.name === error.module);
    const span = owner?.spans.find(({ from, to }) => error.line >= from && error.line <= to);
    return {
      contract: owner?.contract.name ?? error.module,
      example: span ? `${span.example.label} (${span.example.pointer})` : `(module) ${error.where}`,
      message: error.message,
    };
  });
}
