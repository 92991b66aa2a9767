import { describe, expect, it } from "vitest";
import {
  createMemoryDedupeStore,
  createWebhookDeduper,
  type WebhookDedupeStore,
  WebhookError,
} from "../../src/webhooks/index.ts";

describe("createMemoryDedupeStore", () => {
  it("claims an id once", () => {
    const store = createMemoryDedupeStore();
    expect(store.add("evt_1")).toBe(true);
    expect(store.add("evt_1")).toBe(false);
    store.delete("evt_1");
    expect(store.add("evt_1")).toBe(true);
  });

  it("keeps at most maxEntries ids, evicting the least recently used", () => {
    const store = createMemoryDedupeStore({ maxEntries: 3 });
    for (const id of ["a", "b", "c"]) store.add(id);
    expect(store.add("a")).toBe(false); // a is now the most recent
    store.add("d"); // evicts b, the least recently used
    expect(store.size).toBe(3);
    expect(store.add("a")).toBe(false);
    expect(store.add("c")).toBe(false);
    expect(store.add("b")).toBe(true);
  });

  it("stays bounded under many ids", () => {
    const store = createMemoryDedupeStore({ maxEntries: 100 });
    for (let i = 0; i < 10_000; i++) store.add(`evt_${i}`);
    expect(store.size).toBe(100);
    expect(store.add("evt_9999")).toBe(false);
    expect(store.add("evt_0")).toBe(true);
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses maxEntries %s, naming it", (maxEntries) => {
    expect(() => createMemoryDedupeStore({ maxEntries })).toThrow(/maxEntries must be a positive integer/);
  });
});

describe("createWebhookDeduper", () => {
  it("runs the work once per event id and reports duplicates", async () => {
    const deduper = createWebhookDeduper();
    const runs: string[] = [];
    expect(
      await deduper.process("evt_1", () => {
        runs.push("evt_1");
        return "ok";
      }),
    ).toEqual({ duplicate: false, value: "ok" });
    expect(await deduper.process("evt_1", () => runs.push("again"))).toEqual({ duplicate: true });
    expect(await deduper.process("evt_2", () => runs.push("evt_2"))).toMatchObject({ duplicate: false });
    expect(runs).toEqual(["evt_1", "evt_2"]);
  });

  it("forgets an id whose work failed, so the retry is processed", async () => {
    const deduper = createWebhookDeduper();
    await expect(deduper.process("evt_1", () => Promise.reject(new Error("db down")))).rejects.toThrow("db down");
    expect(await deduper.process("evt_1", () => "processed on retry")).toEqual({
      duplicate: false,
      value: "processed on retry",
    });
    expect(await deduper.process("evt_1", () => "third")).toEqual({ duplicate: true });
  });

  it("treats a delivery that arrives while the first is still running as a duplicate", async () => {
    const deduper = createWebhookDeduper();
    let release!: () => void;
    const first = deduper.process("evt_1", () => new Promise<string>((resolve) => (release = () => resolve("first"))));
    const second = await deduper.process("evt_1", () => "second");
    release();
    expect(second).toEqual({ duplicate: true });
    expect(await first).toEqual({ duplicate: false, value: "first" });
  });

  it("uses a pluggable, async store", async () => {
    const calls: string[] = [];
    const ids = new Set<string>();
    const store: WebhookDedupeStore = {
      async add(id) {
        calls.push(`add ${id}`);
        if (ids.has(id)) return false;
        ids.add(id);
        return true;
      },
      async delete(id) {
        calls.push(`delete ${id}`);
        ids.delete(id);
      },
    };
    const deduper = createWebhookDeduper({ store });
    await deduper.process("evt_1", () => undefined);
    await deduper.process("evt_1", () => undefined);
    await deduper
      .process("evt_2", () => {
        throw new Error("boom");
      })
      .catch(() => undefined);
    expect(calls).toEqual(["add evt_1", "add evt_1", "add evt_2", "delete evt_2"]);
  });

  it("refuses bad input, naming it", async () => {
    expect(() => createWebhookDeduper({ store: createMemoryDedupeStore(), maxEntries: 5 })).toThrow(
      /either store or maxEntries/,
    );
    await expect(createWebhookDeduper().process("", () => 1)).rejects.toThrow(WebhookError);
    await expect(createWebhookDeduper().process("", () => 1)).rejects.toThrow(/eventId must be a non-empty string/);
  });
});
