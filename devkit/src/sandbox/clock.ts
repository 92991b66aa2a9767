/**
 * The sandbox clock, the one place the sandbox reads the time from. It follows real time times `speed`
 * from its start reading, and `advance` moves it forward; it never goes back.
 */
export class SandboxClock {
  private readonly startedAtReal: number;
  private offsetMs = 0;

  constructor(
    private readonly startMs: number,
    readonly speed: number,
    private readonly realNow: () => number = () => performance.now(),
  ) {
    this.startedAtReal = realNow();
  }

  /** Milliseconds since the epoch, on the sandbox's time line. */
  now(): number {
    return this.startMs + (this.realNow() - this.startedAtReal) * this.speed + this.offsetMs;
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  /** Moves the clock forward by `ms` (never back). */
  advance(ms: number): void {
    if (ms > 0) this.offsetMs += ms;
  }

  /** Moves the clock forward to `at` when it reads earlier. */
  advanceTo(at: number): void {
    this.advance(at - this.now());
  }

  /** How long in real milliseconds until the clock reads `at`. */
  realDelayUntil(at: number): number {
    return Math.max(0, (at - this.now()) / this.speed);
  }
}
