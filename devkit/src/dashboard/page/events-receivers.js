// @ts-check
/** The Events view's webhook receivers: the chosen account's, each with a button to remove it, and a form to add one. */
import { as, client, ok } from "./api.js";
import { announce, dataTable, h, showProblem } from "./dom.js";

/**
 * @param {import("./api.js").Schemas["WebhookEndpoint"][]} list
 * @param {string} account
 * @param {() => Promise<void>} refresh
 */
export function drawEndpoints(list, account, refresh) {
  const url = h("input", {
    type: "url",
    required: true,
    placeholder: "http://127.0.0.1:4242/webhooks",
    id: "endpoint-url",
  });
  const secret = h("input", { type: "text", required: true, id: "endpoint-secret", value: "whsec_sandbox" });
  const form = h(
    "form",
    {
      class: "inline",
      onsubmit: async (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        try {
          await ok(
            client.POST("/_sandbox/webhook-endpoints", {
              headers: as(account),
              body: {
                url: /** @type {HTMLInputElement} */ (url).value,
                secret: /** @type {HTMLInputElement} */ (secret).value,
              },
            }),
          );
          announce("webhook receiver added");
          await refresh();
        } catch (error) {
          showProblem(error);
        }
      },
    },
    h("label", { for: "endpoint-url" }, "Receiver URL", url),
    h("label", { for: "endpoint-secret" }, "Signing secret", secret),
    h("button", { type: "submit" }, "Add receiver"),
  );
  return [
    list.length === 0
      ? h("p", { class: "muted" }, "No receiver: events are recorded but not sent. Add one to see delivery attempts.")
      : dataTable(
          "Webhook receivers",
          ["Receiver", "URL", "Event types", ""],
          list.map((endpoint) =>
            h(
              "tr",
              {},
              h("td", {}, h("code", {}, endpoint.id)),
              h("td", {}, endpoint.url),
              h("td", {}, (endpoint.events ?? ["every type"]).join(", ")),
              h(
                "td",
                {},
                h(
                  "button",
                  {
                    type: "button",
                    "aria-label": `Remove receiver ${endpoint.url}`,
                    dataset: { key: `${endpoint.id}:remove` },
                    onclick: async () => {
                      try {
                        await ok(
                          client.DELETE("/_sandbox/webhook-endpoints/{endpointId}", {
                            params: { path: { endpointId: endpoint.id } },
                            headers: as(account),
                          }),
                        );
                        announce(`receiver ${endpoint.url} removed`);
                        await refresh();
                      } catch (error) {
                        showProblem(error);
                      }
                    },
                  },
                  "Remove",
                ),
              ),
            ),
          ),
        ),
    form,
  ];
}
