/**
 * Lookups by id across accounts: the account a transaction id or a company id belongs to (getTransaction's 403
 * for another account's transaction, the hosted pages, which carry no API key). Built from the state on first
 * use, kept as records are added (the engine tells it, where it notes the change for the journal), and built
 * again for a new accounts object (a reset, a rollback).
 */
import type { SandboxState } from "./state.ts";

export class OwnerIndex {
  private built:
    | { accounts: SandboxState["accounts"]; transactions: Map<string, string>; companies: Map<string, string> }
    | undefined;

  constructor(private readonly accounts: () => SandboxState["accounts"]) {}

  private index() {
    const accounts = this.accounts();
    if (this.built?.accounts === accounts) return this.built;
    const built = { accounts, transactions: new Map<string, string>(), companies: new Map<string, string>() };
    for (const [apiKey, account] of Object.entries(accounts)) {
      // The first account with an id wins, as a search from the start would find it.
      for (const id of Object.keys(account.transactions))
        if (!built.transactions.has(id)) built.transactions.set(id, apiKey);
      for (const record of account.companies)
        if (!built.companies.has(record.company.id)) built.companies.set(record.company.id, apiKey);
    }
    this.built = built;
    return built;
  }

  /** A transaction or company added to an account (nothing to do until the index is first used). */
  added(kind: "transactions" | "companies", id: string, apiKey: string): void {
    const built = this.built;
    if (built?.accounts !== this.accounts()) return;
    if (!built[kind].has(id)) built[kind].set(id, apiKey);
  }

  /** The API key of the account a transaction belongs to, whichever account it is. */
  transaction(id: string): string | undefined {
    return this.index().transactions.get(id);
  }

  /** The API key of the account a company belongs to, whichever account it is. */
  company(id: string): string | undefined {
    return this.index().companies.get(id);
  }
}
