/**
 * The sandbox clock, the one place the sandbox reads the time from. It follows real time times `speed`
 * from its start reading, unless frozen, and `advance` moves it forward; it never goes back. It reads within
 * CLOCK_RANGE: from 1970 (ids carry the time as milliseconds since then) to the end of 9999 (the last year an
 * ISO 8601 time of four digits names), and stops at its end.
 */

/** The earliest and the latest time the clock reads, in milliseconds since the epoch. */
export const CLOCK_RANGE = { min: 0, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) } as const;
export const CLOCK_RANGE_TEXT = "from 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z";

/** Whether a time (milliseconds since the epoch) is one the clock can read. */
export function inClockRange(ms: number): boolean {
  return ms >= CLOCK_RANGE.min && ms <= CLOCK_RANGE.max;
}

export class SandboxClock {
  private startedAtReal: number;
  private offsetMs = 0;
  /** The reading it stays at while frozen. */
  private frozenAt: number | undefined;

  private startMs: number;
  readonly speed: number;
  private readonly realNow: () => number;
  constructor(startMs: number, speed: number, realNow: () => number = () => performance.now()) {
    this.startMs = startMs;
    this.speed = speed;
    this.realNow = realNow;
    this.startedAtReal = realNow();
  }

  /** Milliseconds since the epoch, on the sandbox's time line. */
  now(): number {
    if (this.frozenAt !== undefined) return Math.min(this.frozenAt, CLOCK_RANGE.max);
    return Math.min(this.startMs + (this.realNow() - this.startedAtReal) * this.speed + this.offsetMs, CLOCK_RANGE.max);
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  get frozen(): boolean {
    return this.frozenAt !== undefined;
  }

  /** Stops the clock at its reading until `resume`; `advance` still moves it. */
  freeze(): void {
    this.frozenAt ??= this.now();
  }

  /**
   * Freezes a clock that has not been moved at its start reading, whatever real time has passed since it was made
   * (a process descheduled between the two would otherwise start a frozen sandbox a millisecond late).
   */
  freezeAtStart(): void {
    this.frozenAt ??= Math.min(this.startMs, CLOCK_RANGE.max);
  }

  /** Follows real time again from the reading it was frozen at. */
  resume(): void {
    if (this.frozenAt === undefined) return;
    this.startMs = this.frozenAt;
    this.startedAtReal = this.realNow();
    this.offsetMs = 0;
    this.frozenAt = undefined;
  }

  /** Moves the clock forward by `ms` (never back, never past the end of its range). */
  advance(ms: number): void {
    ms = Math.min(ms, CLOCK_RANGE.max - this.now());
    if (!(ms > 0)) return;
    if (this.frozenAt !== undefined) this.frozenAt += ms;
    else this.offsetMs += ms;
  }

  /** Moves the clock forward to `at` when it reads earlier. */
  advanceTo(at: number): void {
    this.advance(at - this.now());
  }

  /** How long in real milliseconds until the clock reads `at`; Infinity while frozen short of it. */
  realDelayUntil(at: number): number {
    const ahead = at - this.now();
    if (ahead <= 0) return 0;
    return this.frozenAt !== undefined ? Number.POSITIVE_INFINITY : ahead / this.speed;
  }
}
