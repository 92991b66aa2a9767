/**
 * The sandbox's only source of chance: a small seeded generator (sfc32) whose four-number state is kept in
 * the account it belongs to, so the same seed and the same calls give the same ids and data, run after run,
 * and a restart from a state file carries on where it stopped. Ids are ULIDs: the clock's time in the first
 * 10 characters, so they sort by creation, and 16 characters from the generator after it.
 */

export type RandomState = [number, number, number, number];

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const HEX = "0123456789abcdef";
const DIGITS = "0123456789";

/** The initial state for a seed and a name (an account's API key): FNV-1a over both, spread four ways. */
export function randomStateFor(seed: number, name: string): RandomState {
  let hash = 0x811c9dc5 ^ seed;
  for (const char of `${seed}:${name}`) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193);
  }
  const state: RandomState = [
    hash >>> 0,
    (hash ^ 0x9e3779b9) >>> 0,
    (hash ^ 0x243f6a88) >>> 0,
    (seed >>> 0) ^ 0x85a308d3,
  ];
  const holder = { random: state };
  const random = new SeededRandom(holder);
  for (let i = 0; i < 12; i++) random.next();
  return holder.random;
}

/** What a generator's state lives in: an account, or test mode's own. `lastId` keeps ids of one millisecond in order. */
export interface RandomHolder {
  random: RandomState;
  lastId?: string;
}

/** The last time ulidTime wrote, and what it wrote (a frozen clock, or a busy millisecond, asks again and again). */
let lastTime = { ms: Number.NaN, text: "" };

/** The 10 characters of a ULID that hold its time: milliseconds since the epoch, 48 bits of Crockford base32. */
export function ulidTime(ms: number): string {
  if (ms === lastTime.ms) return lastTime.text;
  if (!Number.isSafeInteger(Math.floor(ms)) || ms < 0 || ms >= 2 ** 48)
    throw new RangeError(`a ULID holds times from 1970 to 10889, not ${ms}`);
  let text = "";
  for (let i = 9, t = Math.floor(ms); i >= 0; i--, t = Math.floor(t / 32)) text = CROCKFORD[t % 32] + text;
  lastTime = { ms, text };
  return text;
}

/** Each Crockford character's value by its character code (-1: not one). */
const CROCKFORD_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < CROCKFORD.length; i++) CROCKFORD_VALUE[CROCKFORD.charCodeAt(i)] = i;

/**
 * The 16 Crockford characters of a ULID's random part plus `step`, added digit by digit from the last (no BigInt:
 * a frozen clock takes this path for every id); undefined when the sum does not fit in 16 characters (2^80).
 */
export function randomPartPlus(part: string, step: number): string | undefined {
  const codes = new Array<number>(16);
  let carry = step;
  for (let i = 15; i >= 0; i--) {
    const code = part.charCodeAt(i);
    const sum = (code < 128 ? CROCKFORD_VALUE[code]! : -1) + carry;
    codes[i] = CROCKFORD.charCodeAt(sum % 32);
    carry = Math.floor(sum / 32);
  }
  return carry > 0 ? undefined : String.fromCharCode(...codes);
}

/** Draws from the state kept in `holder.random` (an account), writing the new state back after each draw. */
export class SeededRandom {
  private readonly holder: RandomHolder;
  /** The time an id carries (the sandbox clock's reading, or the time seeded data is dated). */
  private readonly now: () => number;
  /** Told after each draw (an id, a token, a number) that the holder's state moved: the store keeps it. */
  private readonly drawn: () => void;
  constructor(holder: RandomHolder, now: () => number = () => 0, drawn: () => void = () => undefined) {
    this.holder = holder;
    this.now = now;
    this.drawn = drawn;
  }

  /** A 32-bit unsigned integer (sfc32). */
  next(): number {
    const value = this.step();
    this.drawn();
    return value;
  }

  private step(): number {
    // The state is updated in place: a draw allocates nothing.
    const state = this.holder.random;
    const a = state[0] >>> 0;
    const b = state[1] >>> 0;
    const c = state[2] >>> 0;
    const d = state[3] >>> 0;
    const t = (((a + b) | 0) + d) | 0;
    const rotated = ((c << 21) | (c >>> 11)) + t;
    state[0] = (b ^ (b >>> 9)) >>> 0;
    state[1] = ((c + (c << 3)) | 0) >>> 0;
    state[2] = (rotated | 0) >>> 0;
    state[3] = ((d + 1) | 0) >>> 0;
    return t >>> 0;
  }

  /** An integer in [0, below). */
  below(below: number): number {
    return this.next() % below;
  }

  private codes(alphabet: string, length: number): string {
    const codes = new Array<number>(length);
    for (let i = 0; i < length; i++) codes[i] = alphabet.charCodeAt(this.step() % alphabet.length);
    return String.fromCharCode(...codes);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }

  /** Built from character codes in one go: a flat string, not a chain of concatenations kept in memory. */
  chars(alphabet: string, length: number): string {
    const text = this.codes(alphabet, length);
    this.drawn();
    return text;
  }

  /**
   * A ULID: the time in its first 10 characters, 16 drawn from the generator after them. An id made in the
   * same millisecond as the holder's last (or, should time stand still or go back, at any time not after it)
   * takes the last one's time and its random part plus a drawn step, as ULID's monotonic mode does, so the
   * holder's ids always sort in the order they were made.
   */
  ulid(): string {
    let time = ulidTime(this.now());
    let random: string;
    const last = this.holder.lastId;
    if (last !== undefined && last.slice(0, 10) >= time) {
      // The 16 characters are drawn all the same (the generator moves as it always has), and not written out.
      for (let i = 0; i < 16; i++) this.step();
      time = last.slice(0, 10);
      const next = randomPartPlus(last.slice(10), this.step() + 1);
      if (next === undefined) throw new RangeError(`no ULID is left after ${last} in its millisecond`);
      random = next;
    } else random = this.codes(CROCKFORD, 16);
    const id = time + random;
    this.holder.lastId = id;
    this.drawn();
    return id;
  }

  digits(length: number): string {
    return this.chars(DIGITS, length);
  }

  hex(length: number): string {
    return this.chars(HEX, length);
  }

  base58(length: number): string {
    return this.chars(BASE58, length);
  }

  token(length = 32): string {
    return this.chars(`${BASE58}-_`, length);
  }
}
