/**
 * verify's webhook receivers: started (and registered through the control API when the target serves it) before
 * the first phase, and at the end awaited for the events the workflows promise, every delivery judged, and the
 * registered receivers removed again.
 */
import { CHECKS, heldIds, namedIds } from "../checks.ts";
import { contractExampleIds } from "../example-ids.ts";
import type { ExpectedEvent } from "../flows.ts";
import { MAX_DELIVERIES, MAX_DELIVERY_BYTES, MAX_DELIVERY_BYTES_KEPT, startReceiver } from "../receiver.ts";
import type { Delivery } from "../types.ts";
import { setupFailure } from "./control.ts";
import { DEFAULT_WEBHOOK_WAIT_MS } from "./options.ts";
import type { Run } from "./run.ts";

export async function startWebhooks(run: Run): Promise<void> {
  // Deliveries are judged by the delivery checks, awaited by webhook_delivered, and searched for the other
  // account's ids by account_isolation.
  const wanted =
    CHECKS.some((check) => (check.target === "delivery" || check.target === "run") && run.enabled.has(check.id)) ||
    (run.enabled.has("account_isolation") && run.options.otherApiKey !== undefined);
  if (!wanted) return;
  if (!run.writes) {
    run.skip("webhooks", "webhooks follow writes: pass --allow-writes to trigger them");
    return;
  }
  if (!run.control && run.options.webhookSecret === undefined) {
    run.skip(
      "webhooks",
      "needs --webhook-secret (the secret of a receiver you registered with the service) or a target serving the sandbox's control API",
    );
    return;
  }
  run.receiver = await startReceiver({
    ...(run.options.webhookHost !== undefined ? { host: run.options.webhookHost } : {}),
    ...(run.options.webhookPort !== undefined ? { port: run.options.webhookPort } : {}),
  });
  if (run.control) {
    const accounts: ["main" | "other", string][] = [["main", run.options.apiKey]];
    if (run.options.otherApiKey !== undefined) accounts.push(["other", run.options.otherApiKey]);
    try {
      for (const [account, apiKey] of accounts) {
        const { data } = await run.control.as(apiKey).POST("/_sandbox/webhook-endpoints", {
          body: { url: `${run.receiver.url}/${account}`, secret: run.webhookSecrets.get(account)! } as never,
        });
        // The control contract answers the endpoint itself (WebhookEndpoint): its id is what the clean-up removes.
        const id = (data as { id?: unknown } | undefined)?.id;
        if (typeof id === "string") {
          run.endpoints.push({ account, id });
          run.registered++;
        }
      }
    } catch (error) {
      if (run.signal.aborted) throw error;
      run.skip("webhooks", `registering verify's receiver failed: ${setupFailure(error)}`);
      // No receiver is registered for all accounts: nothing is awaited, and what was registered is removed.
      await run.receiver.close();
      run.receiver = undefined;
      await removeEndpoints(run);
      return;
    }
    run.progress(
      `  webhook receiver ${run.receiver.url} registered through the sandbox's control API (each account with its own secret)`,
    );
  } else {
    run.progress(
      `  webhook receiver listening on ${run.receiver.url}: register ${run.receiver.url}/main with the service (signing secret: --webhook-secret)${run.options.otherApiKey !== undefined ? `, and ${run.receiver.url}/other for the other account (--other-webhook-secret)` : ""}`,
    );
  }
}

/** Removes the receivers this run registered: a run leaves no endpoint behind. */
export async function removeEndpoints(run: Run): Promise<void> {
  if (!run.control) return;
  const keys = new Map([
    ["main", run.options.apiKey],
    ["other", run.options.otherApiKey],
  ]);
  for (const endpoint of run.endpoints.splice(0))
    try {
      // Its own bound, not the run's signal: a run stopped by --max-duration or Ctrl-C still cleans up.
      await run.control
        .as(keys.get(endpoint.account), AbortSignal.timeout(10_000))
        .DELETE("/_sandbox/webhook-endpoints/{endpointId}", {
          params: { path: { endpointId: endpoint.id } },
        } as never);
      run.removed++;
    } catch (error) {
      run.skip("clean-up", `the receiver ${endpoint.id} could not be removed: ${setupFailure(error)}`);
    }
}

export async function finishWebhooks(run: Run): Promise<number> {
  const receiver = run.receiver;
  if (!receiver) return 0;
  const matches = (event: ExpectedEvent) => (delivery: Delivery) => {
    const json = delivery.json as { type?: unknown; payload?: { companyId?: unknown } } | undefined;
    return (
      delivery.account === (event.account ?? "main") &&
      json?.type === event.type &&
      (event.companyId === undefined || json.payload?.companyId === event.companyId)
    );
  };
  const waitMs = run.options.webhookWaitMs ?? DEFAULT_WEBHOOK_WAIT_MS;
  if (run.expected.length > 0) {
    run.progress(`  waiting up to ${waitMs / 1000} s for ${run.expected.length} expected webhook deliveries`);
    // Each delivery is matched once against the events still awaited: linear in the deliveries.
    const awaited = new Set(run.expected);
    await receiver.waitFor(
      (delivery) => {
        for (const event of awaited) if (matches(event)(delivery)) awaited.delete(event);
        return awaited.size === 0;
      },
      1,
      waitMs,
      run.signal,
    );
  }
  await receiver.close();
  await removeEndpoints(run);
  if (receiver.notKept > 0)
    run.skip(
      "webhooks",
      `${receiver.notKept} delivery(ies) answered but not checked: over ${MAX_DELIVERY_BYTES / 1024 / 1024} MiB each, or past the ${MAX_DELIVERIES} deliveries or ${MAX_DELIVERY_BYTES_KEPT / 1024 / 1024} MiB verify keeps`,
    );
  // Each account's deliveries are searched for the other's ids.
  const shared = contractExampleIds(run.context.document);
  const notShared = (ids: Set<string>) => new Set([...ids].filter((id) => !shared.has(id)));
  const foreign = { main: notShared(run.other.objectIds()), other: notShared(run.main.objectIds()) };
  const isolation = run.enabled.has("account_isolation") && run.options.otherApiKey !== undefined;
  // Every delivery is judged, a redelivery as much as the first copy: one with a bad signature is a failure.
  for (const delivery of receiver.deliveries) {
    const json = delivery.json as { type?: unknown; id?: unknown } | undefined;
    const type = typeof json?.type === "string" ? json.type : "(unknown event)";
    run.coverage.set(type, (run.coverage.get(type) ?? 0) + 1);
    const base = {
      operationId: type,
      method: "POST",
      path: delivery.path,
      status: null,
      label: `a webhook delivery to the ${delivery.account} account's receiver`,
      ...(typeof json?.id === "string" ? { eventId: json.id } : {}),
    };
    for (const check of run.deliveryChecks)
      for (const finding of check.run(delivery, run.checkContext)) run.record(check, base, finding);
    if (isolation) {
      const held = heldIds(delivery.json, foreign[delivery.account]);
      if (held.length > 0)
        run.record({ id: "account_isolation", level: "error" }, base, {
          message: `the ${delivery.account} account's receiver got an event naming ${namedIds(held)}, ${held.length === 1 ? "an object" : "objects"} of the ${delivery.account === "main" ? "other" : "first"} account`,
        });
    }
  }
  if (run.enabled.has("webhook_delivered"))
    for (const event of run.expected)
      if (!receiver.deliveries.some(matches(event)))
        run.record(
          { id: "webhook_delivered", level: "error" },
          { operationId: event.type, method: "POST", path: "(receiver)", status: null, label: event.after },
          {
            message: `no ${event.type}${event.companyId !== undefined ? ` for company ${event.companyId}` : ""} arrived within ${waitMs / 1000} s of ${event.after} (its x-webhooks)`,
          },
        );
  return receiver.deliveries.length;
}
