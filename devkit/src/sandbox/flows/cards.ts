/**
 * Cards: issuing (a card is `Creating`, then `Active` once its issuing time has passed on the clock), listing,
 * spend settings, unfreezing, the details token, card holders and the company's BINs.
 */
import type { CardRecord, CompanyRecord } from "../records.ts";
import { deepFreeze } from "../store/tables.ts";
import {
  actingCompany,
  apiKeyOf,
  defineFlow,
  type FlowEnv,
  notFound,
  pageOf,
  pathCompany,
  unprocessable,
} from "./flow.ts";
import type { TaskKinds } from "./tasks.ts";

/** The BINs every company is seeded with (frozen: every company's record holds this one list). */
export const SEEDED_CARD_BINS = deepFreeze([
  {
    bin: "45671234",
    network: "Visa",
    label: "Visa Business USD",
    currencies: ["USD"],
    supportsPhysicalCard: false,
    fee: 0,
  },
  {
    bin: "53987600",
    network: "Mastercard",
    label: "Mastercard Corporate EUR/USD",
    currencies: ["EUR", "USD"],
    supportsPhysicalCard: true,
    fee: 1.5,
  },
]);

export function addCardHolder(env: FlowEnv, company: CompanyRecord, name: string, email: string) {
  const id = env.random(company.account).ulid();
  const holder = { id, name, email, status: "ACTIVE", createdAt: env.now() };
  env.store.put("cardHolders", { id, account: company.account, companyId: company.id, cardHolder: holder });
  return holder;
}

function findCard(env: FlowEnv, company: CompanyRecord, id: string): CardRecord {
  const card = env.store.get("cards", company.account, id);
  if (!card || card.companyId !== company.id) throw notFound("card", id);
  return card;
}

/** The company's card holder by id. */
function findHolder(env: FlowEnv, company: CompanyRecord, id: string) {
  const holder = env.store.get("cardHolders", company.account, id);
  return holder && holder.companyId === company.id ? holder.cardHolder : undefined;
}

/** The timed work of cards. */
export type CardTasks = Pick<TaskKinds, "activateCard">;

export const cards = defineFlow<CardTasks>()({
  name: "cards",
  partner: {
    createCard(call) {
      const company = actingCompany(call);
      const { cardHolderId, name, category, bin, description } = call.body;
      const bins = company.cardBins.map((b) => b.bin);
      if (!bins.includes(bin))
        throw unprocessable(`bin ${bin} is not one of the company's card BINs (${bins.join(", ")})`);
      const holder = findHolder(call.env, company, cardHolderId);
      if (!holder)
        throw unprocessable(`cardHolderId ${cardHolderId} is not a card holder of company ${company.company.id}`);
      const { env } = call;
      const random = env.random(company.account);
      const card = {
        id: random.ulid(),
        brand: company.cardBins.find((b) => b.bin === bin)!.network!,
        last4: random.digits(4),
        name,
        type: "company" as const,
        status: "Creating",
        cardholder: { name: holder.name, email: holder.email },
        createdAt: env.now(),
      };
      env.store.put("cards", {
        id: card.id,
        account: company.account,
        companyId: company.id,
        card,
        cardHolderId,
        bin,
        category,
        ...(description ? { description } : {}),
        frozen: false,
      });
      env.schedule({
        kind: "activateCard",
        apiKey: apiKeyOf(call),
        dueAt: env.reading() + env.settings.cardIssuingSeconds * 1000,
        companyId: company.id,
        cardId: card.id,
      });
      return { status: 201, body: { card: { id: card.id, status: card.status } } };
    },

    listCards(call) {
      const company = actingCompany(call);
      const keyword = call.params.keyword?.toLowerCase();
      const all = call.env.store.list("cards", company.account, company.id);
      const matching = keyword
        ? all.filter(({ card }) =>
            [card.name, card.last4, card.cardholder?.name, card.cardholder?.email].some((text) =>
              text?.toLowerCase().includes(keyword),
            ),
          )
        : all;
      // The page first: a page of 20 costs the same with 50 cards or 100,000.
      const { items, pagination } = pageOf(matching, call.params, 20);
      return { status: 200, body: { cards: items.map((record) => record.card), pagination } };
    },

    updateCardSpendSettings(call) {
      const { env } = call;
      const card = findCard(env, actingCompany(call), call.params.cardId);
      env.store.put("cards", { ...card, spendSettings: call.body });
      return { status: 200, body: {} };
    },

    unfreezeCard(call) {
      const { env } = call;
      const card = findCard(env, actingCompany(call), call.params.cardId);
      // Nothing freezes a card in the sandbox (the API has no freeze operation), so this only records it.
      env.store.put("cards", { ...card, frozen: false });
      return { status: 200, body: {} };
    },

    createCardDetailsToken(call) {
      const company = actingCompany(call);
      findCard(call.env, company, call.params.cardId);
      const accessToken = `sbx_${call.env.random(company.account).token(40)}`;
      return { status: 200, body: { type: "card_details", data: { accessToken } } };
    },

    getCardHolder(call) {
      const holder = findHolder(call.env, actingCompany(call), call.params.cardHolderId);
      if (!holder) throw notFound("card holder", call.params.cardHolderId);
      return { status: 200, body: { cardHolder: holder } };
    },

    listCardBins(call) {
      return { status: 200, body: { cardBins: actingCompany(call).cardBins } };
    },
  },
  control: {
    createCardHolder(call) {
      const holder = addCardHolder(call.env, pathCompany(call), call.body.name, call.body.email);
      return { status: 201, body: { cardHolder: holder } };
    },

    listCardHolders(call) {
      const company = pathCompany(call);
      const holders = call.env.store.list("cardHolders", company.account, company.id).map((h) => h.cardHolder);
      return { status: 200, body: { cardHolders: holders } };
    },
  },
  tasks: {
    activateCard(env, task) {
      const card = env.store.get("cards", task.apiKey, task.cardId);
      if (card && card.companyId === task.companyId && card.card.status === "Creating")
        env.store.put("cards", { ...card, card: { ...card.card, status: "Active" } });
    },
  },
});
