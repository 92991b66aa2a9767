/**
 * Cards: issuing (a card is `Creating`, then `Active` once its issuing time has passed on the clock), listing,
 * spend settings, unfreezing, the details token, card holders and the company's BINs.
 */
import type { SandboxEngine } from "../engine.ts";
import {
  accountOf,
  actingCompany,
  apiKeyOf,
  defineFlow,
  notFound,
  pageOf,
  pathCompany,
  unprocessable,
} from "../flow.ts";
import type { AccountState, CardRecord, CompanyRecord } from "../state.ts";

/** The BINs every company is seeded with. */
export const SEEDED_CARD_BINS = [
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
];

export function addCardHolder(
  engine: SandboxEngine,
  account: AccountState,
  company: CompanyRecord,
  name: string,
  email: string,
) {
  const holder = { id: engine.random(account).ulid(), name, email, status: "ACTIVE", createdAt: engine.now() };
  company.cardHolders.push(holder);
  engine.changed(account, "companies", company, "cardHolders", holder);
  return holder;
}

function findCard(engine: SandboxEngine, company: CompanyRecord, id: string): CardRecord {
  const card = engine.card(company, id);
  if (!card) throw notFound("card", id);
  return card;
}

/** The timed work of cards: the data each kind of task carries. */
export interface CardTasks {
  /** Issuing is done: the card turns Active. */
  activateCard: { companyId: string; cardId: string };
}

export const cards = defineFlow<CardTasks>()({
  name: "cards",
  partner: {
    createCard(call) {
      const account = accountOf(call);
      const company = actingCompany(call);
      const { cardHolderId, name, category, bin, description } = call.body;
      const bins = company.cardBins.map((b) => b.bin);
      if (!bins.includes(bin))
        throw unprocessable(`bin ${bin} is not one of the company's card BINs (${bins.join(", ")})`);
      const holder = company.cardHolders.find((h) => h.id === cardHolderId);
      if (!holder)
        throw unprocessable(`cardHolderId ${cardHolderId} is not a card holder of company ${company.company.id}`);
      const { engine } = call;
      const random = engine.random(account);
      const card = {
        id: random.ulid(),
        brand: company.cardBins.find((b) => b.bin === bin)!.network!,
        last4: random.digits(4),
        name,
        type: "company" as const,
        status: "Creating",
        cardholder: { name: holder.name, email: holder.email },
        createdAt: engine.now(),
      };
      const record = { card, cardHolderId, bin, category, ...(description ? { description } : {}), frozen: false };
      company.cards.push(record);
      engine.changed(account, "companies", company, "cards", record);
      engine.schedule({
        kind: "activateCard",
        apiKey: apiKeyOf(call),
        dueAt: engine.clock.now() + engine.settings.cardIssuingSeconds * 1000,
        companyId: company.company.id,
        cardId: card.id,
      });
      return { status: 201, body: { card: { id: card.id, status: card.status } } };
    },

    listCards(call) {
      const company = actingCompany(call);
      const keyword = call.params.keyword?.toLowerCase();
      const cards = company.cards
        .map((c) => c.card)
        .filter(
          (card) =>
            !keyword ||
            [card.name, card.last4, card.cardholder?.name, card.cardholder?.email].some((text) =>
              text?.toLowerCase().includes(keyword),
            ),
        );
      const { items, pagination } = pageOf(cards, call.params, 20);
      return { status: 200, body: { cards: items, pagination } };
    },

    updateCardSpendSettings(call) {
      const company = actingCompany(call);
      const card = findCard(call.engine, company, call.params.cardId);
      card.spendSettings = call.body;
      call.engine.changed(accountOf(call), "companies", company, "cards", card);
      return { status: 200, body: {} };
    },

    unfreezeCard(call) {
      const company = actingCompany(call);
      const card = findCard(call.engine, company, call.params.cardId);
      // Nothing freezes a card in the sandbox (the API has no freeze operation), so this only records it.
      card.frozen = false;
      call.engine.changed(accountOf(call), "companies", company, "cards", card);
      return { status: 200, body: {} };
    },

    createCardDetailsToken(call) {
      findCard(call.engine, actingCompany(call), call.params.cardId);
      const accessToken = `sbx_${call.engine.random(accountOf(call)).token(40)}`;
      return { status: 200, body: { type: "card_details", data: { accessToken } } };
    },

    getCardHolder(call) {
      const company = actingCompany(call);
      const holder = company.cardHolders.find((h) => h.id === call.params.cardHolderId);
      if (!holder) throw notFound("card holder", call.params.cardHolderId);
      return { status: 200, body: { cardHolder: holder } };
    },

    listCardBins(call) {
      return { status: 200, body: { cardBins: actingCompany(call).cardBins } };
    },
  },
  control: {
    createCardHolder(call) {
      const holder = addCardHolder(call.engine, accountOf(call), pathCompany(call), call.body.name, call.body.email);
      return { status: 201, body: { cardHolder: holder } };
    },

    listCardHolders(call) {
      return { status: 200, body: { cardHolders: pathCompany(call).cardHolders } };
    },
  },
  tasks: {
    activateCard(engine, task) {
      const company = engine.company(engine.account(task.apiKey), task.companyId);
      const card = company && engine.card(company, task.cardId);
      if (card && card.card.status === "Creating") {
        card.card.status = "Active";
        engine.changed(task.apiKey, "companies", company, "cards", card);
      }
    },
  },
});
