/**
 * Request time limits: the platform's `AbortSignal.timeout` / `AbortSignal.any` against the hand-written ones, as a
 * request pays for them (the signal made, a `Request` built with it as fetch does, the limit let go). Two places
 * time requests out: the client (every call, 30 s by default: src/timeout.ts shares one controller and timer among
 * the requests that start within a window, and follows a caller's signal with a controller of its own) and the
 * devkit's webhook deliveries (every attempt, 10 s: devkit/src/webhooks/deliver.ts). Whichever is faster stays.
 */
import { DEFAULT_TIMEOUT_MS, RequestDeadline, TimeoutClock } from "../src/timeout.ts";
import type { Benchmark } from "./context.ts";
import { compareAlternating, microBenchRounds } from "./harness.ts";
import type { Figure, Ratio } from "./results.ts";

const URL_OF_CALL = "http://127.0.0.1:4010/v1/cards?page=2&limit=20";
/** The devkit's attempt limit (webhookTimeoutSeconds' default). */
const ATTEMPT_TIMEOUT_MS = 10_000;

/** The client's limit as written: the shared window's signal, followed by a controller of its own for a caller's. */
function windowed(clock: TimeoutClock, caller: AbortSignal | undefined): Request {
  const deadline = new RequestDeadline(clock, caller);
  const request = new Request(URL_OF_CALL, { signal: deadline.signal });
  deadline.end();
  return request;
}

/** The shared window's signal joined with a caller's by `AbortSignal.any` instead of a follower of its own. */
function windowedAny(clock: TimeoutClock, caller: AbortSignal): Request {
  const window = clock.join();
  const request = new Request(URL_OF_CALL, { signal: AbortSignal.any([caller, window.controller.signal]) });
  clock.leave(window);
  return request;
}

/** The platform alone: a timeout signal per request, joined with a caller's by `AbortSignal.any`. */
function platform(timeoutMs: number, caller: AbortSignal | undefined): Request {
  const timeout = AbortSignal.timeout(timeoutMs);
  return new Request(URL_OF_CALL, { signal: caller ? AbortSignal.any([caller, timeout]) : timeout });
}

/** A webhook attempt's limit written by hand: a controller and a timer of its own, following the outer signal. */
function handWrittenAttempt(outer: AbortSignal): Request {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`no answer within ${ATTEMPT_TIMEOUT_MS} ms`, "TimeoutError")),
    ATTEMPT_TIMEOUT_MS,
  );
  const onOuter = () => controller.abort(outer.reason);
  outer.addEventListener("abort", onOuter, { once: true });
  const request = new Request(URL_OF_CALL, { method: "POST", body: "{}", signal: controller.signal });
  clearTimeout(timer);
  outer.removeEventListener("abort", onOuter);
  return request;
}

function platformAttempt(outer: AbortSignal): Request {
  const signal = AbortSignal.any([AbortSignal.timeout(ATTEMPT_TIMEOUT_MS), outer]);
  return new Request(URL_OF_CALL, { method: "POST", body: "{}", signal });
}

export const abortSignalsBenchmark: Benchmark = {
  name: "abort-signals",
  title: "Request time limits: AbortSignal.timeout/any against the hand-written ones",
  async run({ size, progress }) {
    const { rounds, targetBatchMs } = microBenchRounds(size);
    const figures: Figure[] = [];
    const ratios: Ratio[] = [];
    const notes: string[] = [];
    const caller = new AbortController().signal;
    const clock = new TimeoutClock(DEFAULT_TIMEOUT_MS);
    const scenarios: { label: string; candidates: Record<string, () => Request>; ours: string }[] = [
      {
        label: "client call",
        ours: "shared window (src/timeout.ts)",
        candidates: {
          "shared window (src/timeout.ts)": () => windowed(clock, undefined),
          "AbortSignal.timeout per request": () => platform(DEFAULT_TIMEOUT_MS, undefined),
        },
      },
      {
        label: "client call with the caller's signal",
        ours: "shared window + a follower (src/timeout.ts)",
        candidates: {
          "shared window + a follower (src/timeout.ts)": () => windowed(clock, caller),
          "shared window + AbortSignal.any": () => windowedAny(clock, caller),
          "AbortSignal.timeout + AbortSignal.any per request": () => platform(DEFAULT_TIMEOUT_MS, caller),
        },
      },
      {
        label: "webhook attempt",
        ours: "a timer and a controller of its own",
        candidates: {
          "a timer and a controller of its own": () => handWrittenAttempt(caller),
          "AbortSignal.any([AbortSignal.timeout, outer])": () => platformAttempt(caller),
        },
      },
    ];
    for (const scenario of scenarios) {
      // Each candidate's Request must carry a live signal, or the comparison measures nothing.
      for (const [name, make] of Object.entries(scenario.candidates)) {
        const request = make();
        if (!(request.signal instanceof AbortSignal) || request.signal.aborted)
          throw new Error(
            `abort-signals: ${name} built a request without a live signal; the comparison is meaningless`,
          );
      }
      const result = await compareAlternating({
        candidates: scenario.candidates,
        rounds,
        targetBatchMs,
        onRound: (round, total) => progress(`abort-signals ${scenario.label}: round ${round}/${total}`),
      });
      const fastest = Object.keys(scenario.candidates).reduce((best, name) =>
        result.stats[name]!.medianOpsPerSecond > result.stats[best]!.medianOpsPerSecond ? name : best,
      );
      notes.push(
        fastest === scenario.ours
          ? `${scenario.label}: the hand-written limit is the fastest here and stays (${scenario.ours}).`
          : `${scenario.label}: ${fastest} measured faster than the hand-written limit (${scenario.ours}): the code should switch to it.`,
      );
      for (const name of Object.keys(scenario.candidates)) {
        figures.push({
          label: `${scenario.label}: ${name}`,
          value: result.stats[name]!.medianOpsPerSecond,
          unit: "requests/s",
        });
        if (name !== scenario.ours)
          ratios.push({
            label: `${scenario.label}: ${name} ÷ ${scenario.ours}`,
            value: result.ratio(name, scenario.ours),
          });
      }
    }
    return {
      name: this.name,
      title: this.title,
      method:
        "Requests per second of making a request's time limit, building a `new Request(url, { signal })` with it (undici " +
        "links the signal into every Request, as fetch does) and letting the limit go, for each way of writing the limit: " +
        "the client's (30 s) without and with a caller's signal, and a webhook attempt's (10 s, following the delivery's " +
        "outer signal). Batches timed as a whole, candidates alternating round by round; ratio = median of per-round ratios.",
      figures,
      ratios,
      notes: [
        ...notes,
        "Where a limit is made a few times a run rather than per call under load (an Arazzo step, one of verify's calls), " +
          "the devkit uses AbortSignal.timeout/any as they are: a few microseconds a request there " +
          "weigh nothing against the network.",
      ],
    };
  },
};
