/**
 * Where verify finds the ids an operation needs, read from the contract and its workflows, never written here:
 * each OpenAPI link of the contract (`listCards` 200 → `updateCardSpendSettings`, `path.cardId` from
 * `$response.body#/cards/0/id`, `header.X-Company-Id` from `$request.header.X-Company-Id`) says which answer
 * yields which parameter's value, and for which company; each workflow step that fills a request body field from
 * an earlier step's output (`createCard`'s `bin` from `listCardBins`) says the same of a body field. A link names
 * the first item of a list (`/cards/0/id`): verify takes every item, each an object of the account. Values the
 * partner API cannot give (card holders, wallets, payment routes) come from the workflows that reach the sandbox's
 * control API when the target serves it (flows.ts), or from `--id`. The order operations run in follows the links too (linkOrder).
 */
import type { ArazzoDocument, ArazzoStep, ArazzoWorkflow } from "../arazzo/document.ts";
import { lookup } from "../contract/refs.ts";
import type { Operation } from "../contract/router.ts";

/** The name verify gives a parameter's value: the parameter's own name, a header's in camel case (X-Company-Id: companyId). */
export function valueName(parameter: { in: string; name: string }): string {
  if (parameter.in !== "header") return parameter.name;
  const words = parameter.name.replace(/^x-/i, "").split("-");
  return words
    .map((word, index) => (index === 0 ? word.toLowerCase() : word[0]!.toUpperCase() + word.slice(1).toLowerCase()))
    .join("");
}

/** One value an answer yields for a request: a contract link's parameter, or a workflow's body field. */
export interface ValueSource {
  /** The operation whose 2xx answer yields it. */
  operationId: string;
  /** Where in the answer: property names, `[]` for every item of an array. */
  at: string;
  /** The value's name (valueName of the parameter, or the body field's name). */
  value: string;
  /** The operation that takes it, and where. */
  to: string;
  into: { in: "path" | "query" | "header" | "body"; name: string };
  /** The value belongs to the company the answer was for (the link passes the request's X-Company-Id on). */
  scoped: boolean;
  /** Where the contract says so, for messages: "the link listCards → unfreezeCard". */
  from: string;
  /** Whose operation yields it: the partner API's, or only the sandbox's control API's. */
  api: "partner" | "control";
}

/** `/cards/0/id` as `cards[].id`; undefined for a pointer that starts at an array or is empty. */
export function pointerPath(pointer: string): string | undefined {
  const tokens = pointer
    .split("/")
    .slice(1)
    .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
  const parts: string[] = [];
  for (const token of tokens) {
    if (/^\d+$/.test(token)) {
      if (parts.length === 0) return undefined;
      parts[parts.length - 1] += "[]";
    } else parts.push(token);
  }
  return parts.length === 0 ? undefined : parts.join(".");
}

function resolved<T>(document: Record<string, unknown>, node: unknown): T {
  let value = node as { $ref?: unknown };
  for (let depth = 0; value && typeof value.$ref === "string" && depth < 8; depth++)
    value = lookup(document, value.$ref) as { $ref?: unknown };
  return value as T;
}

/** Every value source the contract's links declare. */
export function linkSources(document: Record<string, unknown>, operations: readonly Operation[]): ValueSource[] {
  const byId = new Map(operations.map((operation) => [operation.operationId, operation]));
  const sources: ValueSource[] = [];
  const paths = (document.paths ?? {}) as Record<string, Record<string, unknown>>;
  for (const item of Object.values(paths))
    for (const node of Object.values(item ?? {})) {
      const operation = node as { operationId?: unknown; responses?: Record<string, unknown> };
      if (typeof operation?.operationId !== "string" || !byId.has(operation.operationId)) continue;
      for (const [status, responseNode] of Object.entries(operation.responses ?? {})) {
        if (!/^2/.test(status)) continue;
        const response = resolved<{ links?: Record<string, unknown> }>(document, responseNode);
        for (const [name, linkNode] of Object.entries(response?.links ?? {})) {
          const link = resolved<{ operationId?: unknown; parameters?: Record<string, unknown> }>(document, linkNode);
          const target = typeof link?.operationId === "string" ? byId.get(link.operationId) : undefined;
          if (!target) continue;
          const entries = Object.entries(link.parameters ?? {});
          const passesCompany = entries.some(
            ([key, expression]) => /x-company-id$/i.test(key) && expression === "$request.header.X-Company-Id",
          );
          for (const [key, expression] of entries) {
            if (typeof expression !== "string" || !expression.startsWith("$response.body#")) continue;
            const at = pointerPath(expression.slice("$response.body#".length));
            const dot = key.indexOf(".");
            const [where, parameterName] = dot === -1 ? [undefined, key] : [key.slice(0, dot), key.slice(dot + 1)];
            const parameter = target.parameters.find(
              (candidate) => candidate.name === parameterName && (where === undefined || candidate.in === where),
            );
            if (!at || !parameter || parameter.in === "cookie") continue;
            sources.push({
              operationId: operation.operationId,
              at,
              value: valueName(parameter),
              to: target.operationId,
              into: { in: parameter.in as "path" | "query" | "header", name: parameter.name },
              scoped: passesCompany,
              from: `the link ${name} of ${operation.operationId}`,
              api: "partner",
            });
          }
        }
      }
    }
  return sources;
}

/** A workflow step's operation id without its source (`$sourceDescriptions.partner.createCard`: createCard). */
function stepOperation(step: ArazzoStep): { source?: string; operationId: string } | undefined {
  const id = (step as { operationId?: unknown }).operationId;
  if (typeof id !== "string") return undefined;
  const match = /^\$sourceDescriptions\.([^.]+)\.(.+)$/.exec(id);
  return match ? { source: match[1]!, operationId: match[2]! } : { operationId: id };
}

/**
 * Value sources the workflows declare for request body fields: a step that fills `createCard`'s `bin` with
 * `$steps.cardCompany.outputs.bin` is followed, through steps and the workflows they run, to the answer that
 * yields it (`listCardBins`, `$response.body#/cardBins/0/bin`). A value only the sandbox's control API yields (a card
 * holder) is named with its control operation: the request needs it, and the control set-up or `--id` supplies it.
 */
export function workflowBodySources(documents: readonly ArazzoDocument[], partner: ReadonlySet<string>): ValueSource[] {
  const workflows = new Map<string, ArazzoWorkflow>();
  for (const document of documents)
    for (const workflow of document.workflows) workflows.set(workflow.workflowId, workflow);
  const sources: ValueSource[] = [];
  /** Follows an expression to the partner operation and pointer that yield it (at most 8 hops). */
  const origin = (
    workflow: ArazzoWorkflow,
    expression: string,
    hops = 0,
  ): { operationId: string; pointer: string; scoped: boolean } | undefined => {
    if (hops > 8) return undefined;
    const step = /^\$steps\.([^.]+)\.outputs\.(.+)$/.exec(expression);
    if (step) {
      const found = workflow.steps.find((candidate) => candidate.stepId === step[1]);
      const output = (found?.outputs as Record<string, unknown> | undefined)?.[step[2]!];
      if (!found || typeof output !== "string") return undefined;
      const nested = (found as { workflowId?: unknown }).workflowId;
      if (typeof nested === "string") {
        const inner = workflows.get(nested.replace(/^\$sourceDescriptions\.[^.]+\./, ""));
        const innerOutput = /^\$outputs\.(.+)$/.exec(output);
        const value = innerOutput
          ? (inner?.outputs as Record<string, unknown> | undefined)?.[innerOutput[1]!]
          : undefined;
        return inner && typeof value === "string" ? origin(inner, value, hops + 1) : undefined;
      }
      const operation = stepOperation(found);
      if (!operation || !output.startsWith("$response.body#")) return undefined;
      // Scoped: the step acts for a company (X-Company-Id, or a companyId in the path of a control call).
      const scoped = ((found.parameters ?? []) as { name?: unknown; in?: unknown }[]).some(
        (parameter) =>
          (parameter.in === "header" && /^x-company-id$/i.test(String(parameter.name))) ||
          (parameter.in === "path" && parameter.name === "companyId"),
      );
      return { operationId: operation.operationId, pointer: output.slice("$response.body#".length), scoped };
    }
    return undefined;
  };
  for (const workflow of workflows.values())
    for (const step of workflow.steps) {
      const operation = stepOperation(step);
      if (!operation || !partner.has(operation.operationId)) continue;
      const payload = (step as { requestBody?: { payload?: unknown } }).requestBody?.payload;
      const fields: [string, unknown, "body" | "path" | "header"][] =
        payload !== null && typeof payload === "object" && !Array.isArray(payload)
          ? Object.entries(payload as Record<string, unknown>).map(([field, value]) => [field, value, "body"])
          : [];
      // A path or header parameter the step fills from an answer no link of the contract names (a wallet's id).
      for (const parameter of (step.parameters ?? []) as { name?: unknown; in?: unknown; value?: unknown }[])
        if ((parameter.in === "path" || parameter.in === "header") && typeof parameter.name === "string")
          fields.push([parameter.name, parameter.value, parameter.in]);
      for (const [field, expression, where] of fields) {
        if (typeof expression !== "string") continue;
        const found = origin(workflow, expression);
        const at = found && pointerPath(found.pointer);
        if (!found || !at) continue;
        const value = where === "body" ? field : valueName({ in: where, name: field });
        const known = sources.some(
          (source) =>
            source.to === operation.operationId &&
            source.into.name === field &&
            source.operationId === found.operationId,
        );
        if (known) continue;
        sources.push({
          operationId: found.operationId,
          at,
          value,
          to: operation.operationId,
          into: { in: where, name: field },
          scoped: found.scoped,
          from: `the workflow ${workflow.workflowId}, step ${step.stepId}`,
          api: partner.has(found.operationId) ? "partner" : "control",
        });
      }
    }
  return sources;
}

/**
 * The order operations run in: an operation after those whose answers its links and workflows feed (layer by
 * layer, the longest chain of sources before it), reads before writes in a layer, then the contract's order.
 * Layer 0 (what needs nothing) comes first: listing and onboarding companies.
 */
export function linkOrder(operations: readonly Operation[], sources: readonly ValueSource[]): Operation[][] {
  const ids = new Set(operations.map((operation) => operation.operationId));
  const feeds = new Map<string, Set<string>>();
  for (const source of sources)
    if (source.operationId !== source.to && ids.has(source.operationId) && ids.has(source.to)) {
      const set = feeds.get(source.to) ?? new Set<string>();
      set.add(source.operationId);
      feeds.set(source.to, set);
    }
  const layer = new Map<string, number>();
  const depth = (id: string, seen: Set<string>): number => {
    const known = layer.get(id);
    if (known !== undefined) return known;
    if (seen.has(id)) return 0; // a cycle: cut it where it closes
    seen.add(id);
    let value = 0;
    for (const from of feeds.get(id) ?? []) value = Math.max(value, depth(from, seen) + 1);
    seen.delete(id);
    layer.set(id, value);
    return value;
  };
  const layers: Operation[][] = [];
  for (const operation of operations) {
    const at = depth(operation.operationId, new Set());
    const list = layers[at] ?? [];
    list.push(operation);
    layers[at] = list;
  }
  const isRead = (operation: Operation) => operation.method === "GET" || operation.method === "HEAD";
  return layers
    .filter((list) => list !== undefined)
    .map((list) => [...list.filter(isRead), ...list.filter((operation) => !isRead(operation))]);
}

/** Why a value may be missing, and how to supply it, from where the contract says it comes (not `forOperation` itself). */
export function howToSupply(name: string, sources: readonly ValueSource[], forOperation?: string): string {
  const feeding = sources.filter((source) => source.value === name && source.operationId !== forOperation);
  const partner = [
    ...new Set(feeding.filter((source) => source.api === "partner").map((source) => source.operationId)),
  ];
  const control = [
    ...new Set(feeding.filter((source) => source.api === "control").map((source) => source.operationId)),
  ];
  if (name === "companyId")
    return `${partner.join(" and ") || "no operation"} gave none; pass --company-id${partner.length > 0 ? ", or --allow-writes to onboard one" : ""}`;
  const alternatives = [`pass --id ${name}=<id>`];
  if (control.length > 0)
    alternatives.push(`verify a sandbox with --allow-writes (its control API's ${control.join(", ")} yields one)`);
  if (partner.length > 0) return `${partner.join(" or ")} gave none the run could use; ${alternatives.join(", or ")}`;
  return `no operation of the partner API yields it; ${alternatives.join(", or ")}`;
}

/**
 * Every string at `at` in a JSON value (`companies[].id`: the id of each company), in order. One pass over
 * the nodes each step reaches, without recursion or spreading an array into arguments: an answer listing
 * 150,000 companies costs 150,000 steps, not the stack.
 */
export function valuesAt(value: unknown, at: string): string[] {
  let nodes: unknown[] = [value];
  for (const part of at.split(".")) {
    const many = part.endsWith("[]");
    const key = many ? part.slice(0, -2) : part;
    const next: unknown[] = [];
    for (const node of nodes) {
      if (node === null || typeof node !== "object" || Array.isArray(node)) continue;
      if (!Object.hasOwn(node, key)) continue;
      const child = (node as Record<string, unknown>)[key];
      if (many) {
        if (Array.isArray(child)) for (const item of child) next.push(item);
      } else if (child !== undefined) next.push(child);
    }
    nodes = next;
  }
  return nodes.filter((node): node is string => typeof node === "string" && node !== "");
}

/** One value found: where, for which company, and how far the contract vouches for it. */
export interface Found {
  name: string;
  value: string;
  /** The company it belongs to, for company-scoped values. */
  companyId?: string;
  /** Where it came from, for messages: "listCards", "--id", "the sandbox's control API". */
  from: string;
  strong: boolean;
}

/** Whether a value names an object (an id: `cardId`), not a catalogue value (a BIN, a chain). */
export function isObjectId(name: string): boolean {
  return /Id$/.test(name);
}

/** The values one account's answers yielded, in the order found; the first of a name wins where one is needed. */
export class FoundValues {
  private readonly byName = new Map<string, Found[]>();
  /** Each value already found, by name, company and value: finding it again costs one look-up. */
  private readonly seen = new Set<string>();

  add(found: Found): void {
    const key = `${found.name}\u0000${found.companyId ?? ""}\u0000${found.value}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    let list = this.byName.get(found.name);
    if (!list) {
      list = [];
      this.byName.set(found.name, list);
    }
    list.push(found);
  }

  /** Values of a name; with a company, the company's own and the unscoped ones. */
  get(name: string, companyId?: string): Found[] {
    const list = this.byName.get(name) ?? [];
    if (companyId === undefined) return list;
    return list.filter((found) => found.companyId === companyId || found.companyId === undefined);
  }

  /** Every id this account's answers named (BINs and chains aside: they are catalogue values, not objects). */
  objectIds(): Set<string> {
    const ids = new Set<string>();
    for (const [name, list] of this.byName) if (isObjectId(name)) for (const found of list) ids.add(found.value);
    return ids;
  }

  /** Takes the values an answer of `operationId` holds, as `sources` say (for `companyId`, when scoped). */
  takeFrom(sources: readonly ValueSource[], operationId: string, json: unknown, companyId: string | undefined): void {
    const done = new Set<string>();
    for (const source of sources) {
      if (source.operationId !== operationId || done.has(`${source.value} ${source.at}`)) continue;
      done.add(`${source.value} ${source.at}`);
      for (const value of valuesAt(json, source.at))
        this.add({
          name: source.value,
          value,
          ...(source.scoped && companyId !== undefined ? { companyId } : {}),
          from: operationId,
          strong: true,
        });
    }
  }
}
