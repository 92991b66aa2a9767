/** The sandbox's defaults and bounds, shared by startSandbox (options.ts) and partner-api-devkit/msw: no Node here. */
import { ATTEMPT_TIMEOUT_MS } from "../webhooks/deliver.ts";

export const DEFAULT_CARD_ISSUING_SECONDS = 10;
export const DEFAULT_KYB_REVIEW_SECONDS = 60;
/** Real seconds one webhook delivery attempt may take (the webhook kit's limit, ATTEMPT_TIMEOUT_MS). */
export const DEFAULT_WEBHOOK_TIMEOUT_SECONDS = ATTEMPT_TIMEOUT_MS / 1000;
/** The longest `webhookTimeoutSeconds` allows. */
export const MAX_WEBHOOK_TIMEOUT_SECONDS = 60;
/** The account scenarios given at start run as when neither they nor `scenarioApiKey` name one. */
export const DEFAULT_SCENARIO_API_KEY = "sandbox";
/** The largest request log `requestLogSize` allows. */
export const MAX_REQUEST_LOG_SIZE = 100_000;
