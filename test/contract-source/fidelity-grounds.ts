/**
 * The fidelity suite's transcription of the source (../shared/seed/partner-api-spec.md): every value rule with its
 * ground, each schema's exact fields and each `required` list; and `ungrounded`, which names what in a document
 * stands without them. fidelity.test.ts runs it on the bundle and on mutated copies of it.
 */

/**
 * Every value rule the contract states (pattern, format, length, bound, count), each with its ground: a line of
 * the source or a standard the source names. docs/api-team.md lists the same under "Readings". A rule not here
 * fails the suite, as does a rule here the contract no longer states. `int32`, `int64`, `float` and `double`
 * formats only annotate a number's type, constrain nothing (the sandbox's validator treats them so), and are left out.
 */
export const READINGS: Record<string, string> = {
  "#/components/schemas/Ulid pattern ^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$":
    "source: all identifiers are ULID strings; ULID standard: 26 Crockford base32 characters, first at most 7, either case on decode",
  "#/components/schemas/Ulid minLength 26": "ULID standard: 26 characters",
  "#/components/schemas/Ulid maxLength 26": "ULID standard: 26 characters",
  "#/components/parameters/WebhookSignature/schema pattern ^[0-9a-fA-F]{64}$":
    "source: X-Signature is the hex digest of an HMAC-SHA256 (32 bytes, 64 hex digits; the case is not given)",
  "#/components/schemas/CurrencyCode pattern ^[A-Z]{3}$": "source: currency is an ISO 4217 code (three letters)",
  "#/components/schemas/DecimalString pattern ^-?[0-9]+(\\.[0-9]+)?$":
    "source: amounts are decimal strings, signed (debits negative)",
  "#/components/schemas/KybProfile/properties/industry pattern ^[0-9]{2,6}$":
    "source: industry is a NAICS industry code, not free text (NAICS codes are 2 to 6 digits)",
  "#/components/schemas/KybProfile/properties/uboDob format date": "source: uboDob is a date, format YYYY-MM-DD",
  "#/components/schemas/EmptyObject maxProperties 0": "source: unfreeze's body is an empty JSON object",
  ...Object.fromEntries(
    ["Card", "CardHolder", "Company", "LedgerTransaction", "PaymentRoute", "Transaction", "WebhookEvent"].map(
      (name) => [
        `#/components/schemas/${name}/properties/createdAt format date-time`,
        "source: createdAt is a date-time",
      ],
    ),
  ),
};

const RULE_KEYWORDS = [
  "pattern",
  "format",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
];
const TYPE_FORMATS = new Set(["int32", "int64", "float", "double"]);

/** Calls `visit` with every object node of a document and its JSON pointer (examples and samples are not rules). */
function walkSchemas(document: any, visit: (node: any, pointer: string) => void): void {
  const walk = (node: any, pointer: string): void => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) walk(item, `${pointer}/${index}`);
      return;
    }
    // A keyword's object under `properties` is a property of that name (`properties.format`), not the keyword.
    if (!pointer.endsWith("/properties")) visit(node, pointer);
    for (const [key, child] of Object.entries(node)) {
      if (key === "example" || key === "examples" || key === "x-codeSamples") continue;
      walk(child, `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`);
    }
  };
  walk(document, "#");
}

/** Every value rule of a document, as `pointer keyword value`. */
function valueRules(document: any): string[] {
  const rules: string[] = [];
  walkSchemas(document, (node, pointer) => {
    for (const keyword of RULE_KEYWORDS) {
      const value = node[keyword];
      if (value === undefined || (typeof value === "object" && value !== null)) continue;
      if (keyword === "format" && TYPE_FORMATS.has(value)) continue;
      rules.push(`${pointer} ${keyword} ${value}`);
    }
  });
  return rules;
}

/** Every object schema's property names, or its `required` list, by pointer. */
function namesBy(document: any, keyword: "properties" | "required"): Record<string, string> {
  const sets: Record<string, string> = {};
  walkSchemas(document, (node, pointer) => {
    const value = node[keyword];
    if (keyword === "required" && Array.isArray(value)) sets[pointer] = value.join(" ");
    if (keyword === "properties" && value && typeof value === "object" && !Array.isArray(value))
      sets[pointer] = Object.keys(value).join(" ");
  });
  return sets;
}

/**
 * Each schema's exact fields, transcribed from the source's Resources, Endpoints and Events tables (request bodies
 * with their fields, responses with the fields their tables list, webhook payloads with the fields the Events
 * section names). A field the source does not list is a defect.
 */
const PROPERTIES: Record<string, string> = {
  "#/components/schemas/TransactionCardDetails": "last4 type country",
  "#/components/schemas/Transaction":
    "id type currency amount counterpartyName counterpartyCode counterpartyBankCode description status paymentMethod card createdAt",
  "#/components/schemas/Transaction/dependentSchemas/card/not": "paymentMethod",
  "#/components/schemas/GetTransactionResponse": "transaction",
  "#/components/schemas/Card": "id brand last4 name type status cardholder createdAt",
  "#/components/schemas/Card/properties/cardholder": "name email",
  "#/components/schemas/Pagination": "currentPage totalPages perPage",
  "#/components/schemas/ListCardsResponse": "cards pagination",
  "#/components/schemas/CreateCardRequest": "cardHolderId name category bin description",
  "#/components/schemas/CreateCardResponse": "card",
  "#/components/schemas/CreateCardResponse/properties/card": "id status",
  "#/components/schemas/SpendSettings":
    "isUnlimitedLimitPerTransaction isAllowedAllCurrencies limitPerTransaction allowedCurrencies",
  "#/components/schemas/SpendSettings/allOf/0/if": "isUnlimitedLimitPerTransaction",
  "#/components/schemas/SpendSettings/allOf/0/then": "limitPerTransaction",
  "#/components/schemas/SpendSettings/allOf/1/if": "isAllowedAllCurrencies",
  "#/components/schemas/SpendSettings/allOf/1/then": "allowedCurrencies",
  "#/components/schemas/CardDetailsToken": "type data",
  "#/components/schemas/CardDetailsToken/properties/data": "accessToken",
  "#/components/schemas/CardHolder": "id name email status createdAt",
  "#/components/schemas/GetCardHolderResponse": "cardHolder",
  "#/components/schemas/CardBin": "bin network label currencies supportsPhysicalCard fee",
  "#/components/schemas/ListCardBinsResponse": "cardBins",
  "#/components/schemas/LedgerTransaction": "id direction amount currency description counterpartyName createdAt",
  "#/components/schemas/CardLedgerEntry": "type transaction data",
  "#/components/schemas/CardLedgerEntry/properties/data": "status card merchant isFx",
  "#/components/schemas/CardLedgerEntry/properties/data/properties/card": "id name last4",
  "#/components/schemas/CardLedgerEntry/properties/data/properties/merchant": "name code city country",
  "#/components/schemas/PaymentAcceptanceLedgerEntry": "type transaction data",
  "#/components/schemas/PaymentAcceptanceLedgerEntry/properties/data": "status paymentMethod paymentDetails",
  "#/components/schemas/AccountLedgerEntry": "type transaction data",
  "#/components/schemas/AccountLedgerEntry/properties/data": "status",
  "#/components/schemas/ListSpendingAccountTransactionsResponse": "transactions pagination",
  "#/components/schemas/OpenWalletAddressRequest": "chain",
  "#/components/schemas/WalletAddress": "address chain",
  "#/components/schemas/WalletAddressResponse": "address",
  "#/components/schemas/CompanySwap": "kycUrl kycStatus tosUrl tosAccepted",
  "#/components/schemas/Company": "id name countryCode status createdAt swap",
  "#/components/schemas/ListCompaniesResponse": "companies",
  "#/components/schemas/OnboardCompanyRequest":
    "name countryCode directorName directorEmail directorPhone addressLine1 addressLine2 city state postalCode products redirectUri",
  "#/components/schemas/OnboardCompanyResponse": "company",
  "#/components/schemas/KybProfile":
    "companyName industry registrationCountry registrationNumber uboFirstName uboLastName uboGender uboCountryCode uboIdType uboIdNumber uboDob website",
  "#/components/schemas/KybSubmission": "status",
  "#/components/schemas/PaymentRouteSource": "type currency paymentRail address",
  "#/components/schemas/PaymentRouteDestination":
    "type currency paymentRail address bankName bankAccountNumber bankRoutingNumber bankBeneficiaryName",
  "#/components/schemas/PaymentRoute": "id type status currency feePercent depositAddress source destination createdAt",
  "#/components/schemas/GetPaymentRouteResponse": "paymentRoute",
  "#/components/schemas/PaymentInstructions": "url",
  "#/components/schemas/WebhookEvent": "id type payload createdAt",
  "#/components/schemas/CompanyOnboardingStatusChangedEvent/allOf/1": "type payload",
  "#/components/schemas/CompanyKycLinkIssuedPayload/allOf/0": "companyId",
  "#/components/schemas/CompanyKycLinkIssuedEvent/allOf/1": "type payload",
  "#/components/schemas/CompanyKycStatusChangedPayload": "companyId kycStatus",
  "#/components/schemas/CompanyKycStatusChangedEvent/allOf/1": "type payload",
  "#/components/schemas/PaymentRouteCreatedPayload": "companyId paymentRoute",
  "#/components/schemas/PaymentRouteCreatedEvent/allOf/1": "type payload",
  "#/components/schemas/OfframpTransactionData":
    "routeId routeType incomingAmount convertedAmount totalFees sourceTxHash destinationTxHash source destination",
  "#/components/schemas/OfframpTransactionData/properties/source": "paymentRail currency fromAddress",
  "#/components/schemas/OfframpTransactionData/properties/destination": "paymentRail currency bankName",
  "#/components/schemas/OnrampTransactionData":
    "routeId routeType senderName senderBankRoutingNumber incomingAmount convertedAmount destinationTxHash",
  "#/components/schemas/PaymentRouteTransactionCreatedPayload": "companyId type transaction data",
  "#/components/schemas/PaymentRouteTransactionCreatedEvent/allOf/1": "type payload",
  "#/components/schemas/CompanyKybStatusChangedEvent/allOf/1": "type payload",
};

/**
 * Every `required` list, transcribed from the source: the request bodies' required fields (Endpoints), the
 * spend settings' conditional ones (an `if` only picks its case, a `then` requires), the webhook envelope's four
 * fields (Events), and the `not` that forbids `paymentMethod` beside `card`. No response field and no webhook
 * payload field is required: the source says every listed response field may be absent, and names no payload
 * field as always present (`routeType` included).
 */
const REQUIRED: Record<string, string> = {
  "#/components/schemas/Transaction/dependentSchemas/card/not": "paymentMethod",
  "#/components/schemas/CreateCardRequest": "cardHolderId name category bin",
  "#/components/schemas/SpendSettings": "isUnlimitedLimitPerTransaction isAllowedAllCurrencies",
  "#/components/schemas/SpendSettings/allOf/0/if": "isUnlimitedLimitPerTransaction",
  "#/components/schemas/SpendSettings/allOf/0/then": "limitPerTransaction",
  "#/components/schemas/SpendSettings/allOf/1/if": "isAllowedAllCurrencies",
  "#/components/schemas/SpendSettings/allOf/1/then": "allowedCurrencies",
  "#/components/schemas/OnboardCompanyRequest":
    "name countryCode directorName directorEmail directorPhone addressLine1 city state postalCode",
  "#/components/schemas/KybProfile":
    "companyName industry registrationCountry registrationNumber uboFirstName uboLastName uboGender uboCountryCode uboIdType uboIdNumber uboDob",
  "#/components/schemas/WebhookEvent": "id type payload createdAt",
  ...Object.fromEntries(
    [
      "CompanyOnboardingStatusChanged",
      "CompanyKycLinkIssued",
      "CompanyKycStatusChanged",
      "PaymentRouteCreated",
      "PaymentRouteTransactionCreated",
      "CompanyKybStatusChanged",
    ].map((name) => [`#/components/schemas/${name}Event/allOf/1`, "type payload"]),
  ),
};

/** Where `found` differs from the transcription `source`, in words (`what` names the kind of list). */
function differences(found: Record<string, string>, source: Record<string, string>, what: string): string[] {
  const problems: string[] = [];
  for (const [pointer, names] of Object.entries(found))
    if (source[pointer] !== names)
      problems.push(`${what} of ${pointer}: ${names} (the source: ${source[pointer] ?? "none"})`);
  for (const pointer of Object.keys(source))
    if (!(pointer in found)) problems.push(`${what} of ${pointer} missing (the source: ${source[pointer]})`);
  return problems;
}

/**
 * What in a document is not grounded: value rules without a reading, fields other than the source's, and
 * `required` lists other than the source's.
 */
export function ungrounded(document: any): string[] {
  const problems: string[] = [];
  const rules = valueRules(document);
  for (const rule of rules) if (!(rule in READINGS)) problems.push(`rule without a source line or reading: ${rule}`);
  for (const reading of Object.keys(READINGS))
    if (!rules.includes(reading)) problems.push(`reading of a rule the contract no longer states: ${reading}`);
  problems.push(...differences(namesBy(document, "properties"), PROPERTIES, "fields"));
  problems.push(...differences(namesBy(document, "required"), REQUIRED, "required"));
  return problems;
}
