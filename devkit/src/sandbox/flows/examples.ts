/**
 * The records the contract's examples name, in every new account: the company of the `X-Company-Id` example,
 * the card holder, card, wallet and payment route of the path parameters' examples, the BINs of listCardBins'
 * example and the transactions of getTransaction's examples. So a request written from the reference (its
 * samples are made of these examples) works as displayed against a fresh account, with nothing to swap. Every
 * value is read from the contract the sandbox serves: a changed example changes what is seeded.
 */
import type { components } from "partner-api-client";
import { partnerDocument } from "../../contract/documents.ts";
import { followRefs, isObject, type Json, type JsonObject } from "../../contract/refs.ts";
import type { CompanyRecord } from "../records.ts";
import { deepFreeze } from "../store/tables.ts";
import { SEEDED_CARD_BINS } from "./cards.ts";
import type { FlowEnv } from "./flow.ts";
import { addWallet, WALLET_CHAINS } from "./routes.ts";

type Schemas = components["schemas"];

/** What a new account is seeded with from the contract's examples. */
export interface ContractExamples {
  companyId: string;
  cardBins: Schemas["CardBin"][];
  cardHolder: Schemas["CardHolder"] & { id: string };
  card: {
    card: Schemas["Card"] & { id: string; status: string };
    bin: string;
    category: string;
    description?: string;
  };
  wallet: { id: string; currency: keyof typeof WALLET_CHAINS };
  route: Schemas["PaymentRoute"] & { id: string };
  transactions: Array<Schemas["Transaction"] & { id: string }>;
}

function operation(document: JsonObject, operationId: string): JsonObject {
  for (const rawItem of Object.values(isObject(document.paths) ? document.paths : {})) {
    const item = followRefs(document, rawItem);
    if (!isObject(item)) continue;
    for (const op of Object.values(item))
      if (isObject(op) && op.operationId === operationId) {
        // The path item's parameters, then the operation's own.
        const parameters = [item.parameters, op.parameters].flatMap((list) => (Array.isArray(list) ? list : []));
        return { ...op, parameters };
      }
  }
  throw new Error(`the partner contract has no operation ${operationId}, whose examples the sandbox seeds`);
}

/** Every named example value (in order) of an operation's success answer, or of its request body. */
function exampleValues(document: JsonObject, op: JsonObject, where: "response" | "request"): Json[] {
  let holder: Json | undefined;
  if (where === "request") holder = followRefs(document, op.requestBody);
  else {
    const responses = isObject(op.responses) ? op.responses : {};
    const status = Object.keys(responses).find((code) => /^2\d\d$/.test(code));
    holder = status === undefined ? undefined : followRefs(document, responses[status]);
  }
  const media = isObject(holder) && isObject(holder.content) ? holder.content["application/json"] : undefined;
  if (!isObject(media)) return [];
  const values: Json[] = [];
  for (const raw of Object.values(isObject(media.examples) ? media.examples : {})) {
    const example = followRefs(document, raw);
    if (isObject(example) && example.value !== undefined) values.push(example.value);
  }
  if (media.example !== undefined) values.push(media.example);
  return values;
}

/** The example of a parameter (by location and name) of an operation. */
function parameterExample(document: JsonObject, op: JsonObject, location: string, name: string): Json | undefined {
  for (const raw of Array.isArray(op.parameters) ? op.parameters : []) {
    const parameter = followRefs(document, raw);
    if (!isObject(parameter) || parameter.in !== location) continue;
    if (String(parameter.name).toLowerCase() !== name.toLowerCase()) continue;
    if (parameter.example !== undefined) return parameter.example;
    const first = isObject(parameter.examples) ? Object.values(parameter.examples)[0] : undefined;
    const example = followRefs(document, first);
    if (isObject(example) && example.value !== undefined) return example.value;
    const schema = followRefs(document, parameter.schema);
    if (isObject(schema) && schema.example !== undefined) return schema.example;
    if (isObject(schema) && Array.isArray(schema.examples)) return schema.examples[0];
  }
  return undefined;
}

function text(value: Json | undefined, what: string): string {
  if (typeof value !== "string") throw new Error(`the partner contract has no string example for ${what}`);
  return value;
}

function field(value: Json | undefined, key: string): Json | undefined {
  return isObject(value) ? value[key] : undefined;
}

/** Reads the examples of a partner contract (exported for tests; `contractExamples()` reads the served one once). */
export function readContractExamples(doc: Record<string, unknown>): ContractExamples {
  const document = doc as JsonObject;
  const getCardHolder = operation(document, "getCardHolder");
  const companyId = text(parameterExample(document, getCardHolder, "header", "X-Company-Id"), "X-Company-Id");
  const holderId = text(parameterExample(document, getCardHolder, "path", "cardHolderId"), "cardHolderId");
  const holder = exampleValues(document, getCardHolder, "response")
    .map((value) => field(value, "cardHolder"))
    .find((value) => field(value, "id") === holderId);
  if (!isObject(holder)) throw new Error(`getCardHolder has no answer example for card holder ${holderId}`);

  const listCardBins = operation(document, "listCardBins");
  const exampleBins = exampleValues(document, listCardBins, "response").flatMap((value) => {
    const bins = field(value, "cardBins");
    return Array.isArray(bins) ? bins.filter(isObject) : [];
  }) as unknown as Schemas["CardBin"][];
  const cardBins: Schemas["CardBin"][] = [...SEEDED_CARD_BINS];
  for (const bin of exampleBins) if (!cardBins.some((known) => known.bin === bin.bin)) cardBins.push(bin);

  const unfreezeCard = operation(document, "unfreezeCard");
  const cardId = text(parameterExample(document, unfreezeCard, "path", "cardId"), "cardId");
  const card = exampleValues(document, operation(document, "listCards"), "response")
    .flatMap((value) => {
      const cards = field(value, "cards");
      return Array.isArray(cards) ? cards : [];
    })
    .find((value) => field(value, "id") === cardId);
  if (!isObject(card)) throw new Error(`listCards has no answer example with card ${cardId}`);
  const [created] = exampleValues(document, operation(document, "createCard"), "request");
  const bin = text(field(created, "bin"), "createCard's bin");
  if (!cardBins.some((known) => known.bin === bin))
    throw new Error(`createCard's example BIN ${bin} is in no listCardBins example`);

  const openWalletAddress = operation(document, "openWalletAddress");
  const walletId = text(parameterExample(document, openWalletAddress, "path", "walletId"), "walletId");
  const [opened] = exampleValues(document, openWalletAddress, "request");
  const chain = field(opened, "chain");
  const currency = (Object.keys(WALLET_CHAINS) as Array<keyof typeof WALLET_CHAINS>).find(
    (name) => chain === undefined || (WALLET_CHAINS[name] as readonly string[]).includes(String(chain)),
  );
  if (currency === undefined)
    throw new Error(`no wallet currency of the sandbox takes openWalletAddress's chain ${chain}`);

  const getPaymentRoute = operation(document, "getPaymentRoute");
  const routeId = text(parameterExample(document, getPaymentRoute, "path", "routeId"), "routeId");
  const route = exampleValues(document, getPaymentRoute, "response")
    .map((value) => field(value, "paymentRoute"))
    .find((value) => field(value, "id") === routeId);
  if (!isObject(route)) throw new Error(`getPaymentRoute has no answer example for route ${routeId}`);

  const transactions = exampleValues(document, operation(document, "getTransaction"), "response")
    .map((value) => field(value, "transaction"))
    .filter(isObject);

  return deepFreeze({
    companyId,
    cardBins,
    cardHolder: holder as unknown as ContractExamples["cardHolder"],
    card: {
      card: card as unknown as ContractExamples["card"]["card"],
      bin,
      category: text(field(created, "category"), "createCard's category"),
      ...(typeof field(created, "description") === "string"
        ? { description: field(created, "description") as string }
        : {}),
    },
    wallet: { id: walletId, currency },
    route: route as unknown as ContractExamples["route"],
    transactions: transactions as unknown as ContractExamples["transactions"],
  });
}

const served = new WeakMap<Record<string, unknown>, ContractExamples>();

/** The examples of the contract the sandbox serves (by default the one read from files), read once per document. */
export function contractExamples(document: Record<string, unknown> = partnerDocument()): ContractExamples {
  let examples = served.get(document);
  if (!examples) {
    examples = readContractExamples(document);
    served.set(document, examples);
  }
  return examples;
}

/** Puts the examples' card holder, card, wallet, route and transactions under `company` (the examples' company). */
export function seedContractExamples(env: FlowEnv, company: CompanyRecord, examples: ContractExamples): void {
  const { account } = company;
  const companyId = company.id;
  const holder = examples.cardHolder;
  env.store.put("cardHolders", { id: holder.id, account, companyId, cardHolder: holder });
  const { card } = examples.card;
  env.store.put("cards", {
    id: card.id,
    account,
    companyId,
    card,
    cardHolderId: holder.id,
    bin: examples.card.bin,
    category: examples.card.category,
    ...(examples.card.description ? { description: examples.card.description } : {}),
    frozen: false,
  });
  addWallet(env, company, examples.wallet.currency, examples.wallet.id);
  env.store.put("routes", { id: examples.route.id, account, companyId, route: examples.route });
  for (const transaction of examples.transactions)
    env.store.put("transactions", { id: transaction.id, account, companyId, transaction });
}
