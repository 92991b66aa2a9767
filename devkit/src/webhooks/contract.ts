/** Reads the webhook events and their named examples from the bundled contract (the devkit's openapi.json). */
import { readFile } from "node:fs/promises";
import { contractJsonPath, displayPath } from "../paths.ts";

export interface ContractWebhook {
  type: string;
  summary: string;
  /** The first named example of the request body, and its name. */
  exampleName: string;
  example: { id: string; type: string; payload: Record<string, unknown>; createdAt: string };
}

type Json = Record<string, unknown>;

export async function readContractWebhooks(file: string = contractJsonPath): Promise<ContractWebhook[]> {
  const document = JSON.parse(await readFile(file, "utf8")) as Json;
  const webhooks = (document.webhooks ?? {}) as Record<string, Json>;
  return Object.entries(webhooks).map(([type, item]) => {
    const post = item.post as Json | undefined;
    const media = ((post?.requestBody as Json | undefined)?.content as Json | undefined)?.["application/json"] as
      | Json
      | undefined;
    const examples = (media?.examples ?? {}) as Record<string, { value?: ContractWebhook["example"] }>;
    const [exampleName, example] = Object.entries(examples)[0] ?? [];
    if (!exampleName || !example?.value) {
      throw new Error(
        `${displayPath(file)}: webhook "${type}" has no named example under post.requestBody.content["application/json"].examples`,
      );
    }
    return { type, summary: String(post?.summary ?? ""), exampleName, example: example.value };
  });
}
