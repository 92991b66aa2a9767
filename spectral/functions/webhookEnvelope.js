// Rule partner-webhook-envelope: every webhook is a POST with the shared X-Signature header parameter and a
// body that is the shared envelope with `type` fixed to the webhook's own name.
import { resolveLocal } from "./walk.js";

export default function webhookEnvelope(document, options) {
  const signatureRef = options?.signatureRef ?? "#/components/parameters/WebhookSignature";
  const envelopeRef = options?.envelopeRef ?? "#/components/schemas/WebhookEvent";
  const results = [];
  for (const [name, item] of Object.entries(document?.webhooks ?? {})) {
    const at = ["webhooks", name];
    const post = item?.post;
    if (!post) {
      results.push({ message: `Webhook "${name}" has no post operation.`, path: at });
      continue;
    }
    if (!(post.parameters ?? []).some((p) => p?.$ref === signatureRef)) {
      results.push({
        message: `Webhook "${name}" lacks the signature header: add \`$ref: '${signatureRef}'\` to its parameters.`,
        path: [...at, "post"],
      });
    }
    const media = post.requestBody?.content?.["application/json"];
    let schema = media?.schema;
    if (schema?.$ref) schema = resolveLocal(document, schema.$ref);
    const parts = Array.isArray(schema?.allOf) ? schema.allOf : [];
    const usesEnvelope = parts.some((part) => part?.$ref === envelopeRef);
    const typeConst = parts.map((part) => part?.properties?.type?.const).find((value) => value !== undefined);
    const requiresType = parts.some((part) => part?.properties?.type && (part.required ?? []).includes("type"));
    if (!usesEnvelope) {
      results.push({
        message: `Webhook "${name}" body is not the shared envelope: its schema must be allOf [\`$ref: '${envelopeRef}'\`, …].`,
        path: [...at, "post", "requestBody"],
      });
    } else if (typeConst !== name || !requiresType) {
      results.push({
        message: `Webhook "${name}" envelope must fix a required \`type\` to const "${name}" (found ${JSON.stringify(typeConst)}).`,
        path: [...at, "post", "requestBody"],
      });
    }
  }
  return results;
}
