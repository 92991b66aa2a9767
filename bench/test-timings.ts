/**
 * The test commands' times as bench/RESULTS.md records them, and the README's sentence made from them, so the
 * README never states a time RESULTS.md does not hold (test/bench/test-timings.test.ts compares the two).
 *
 * A full `npm run bench` times `npm test` and `npm run test:all` in the pipeline benchmark (the rows named by
 * FAST_COMMAND_LABEL and WHOLE_SET_LABEL); until one has run since the split into a fast and a whole set, the figures
 * are the section measured by hand ("The fast command (`npm test`), measured by hand on <date>").
 */
import { FAST_COMMAND_LABEL, WHOLE_SET_LABEL } from "./pipeline.ts";

export interface TestTimings {
  /** Where the figures come from, for the sentence: a full bench run or the section measured by hand. */
  source: "bench run" | "measured by hand";
  /** The day they were measured (YYYY-MM-DD). */
  date: string;
  /** `npm test` from cold (by hand) or its median (bench run), in ms. */
  fastMs: number;
  /** `npm test` re-run with warm caches, in ms (by hand only). */
  fastRerunMs?: number;
  /** `npm run test:all`, in ms. */
  wholeMs: number;
}

const number = (text: string) => Number(text.replace(/,/g, ""));

/** The value of the table row whose first cell is exactly `label` (`| label | 1,234 | ms |`), if there is one. */
function rowValue(results: string, label: string): number | undefined {
  for (const line of results.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    if (cells.length >= 4 && cells[1] === label && /^[\d,.]+$/.test(cells[2]!)) return number(cells[2]!);
  }
  return undefined;
}

/** Reads the test commands' times from RESULTS.md; throws naming what is missing. */
export function readTestTimings(results: string): TestTimings {
  const fast = rowValue(results, FAST_COMMAND_LABEL);
  const whole = rowValue(results, WHOLE_SET_LABEL);
  if (fast !== undefined && whole !== undefined) {
    // The day the section holding them says it was measured (a run with --only keeps sections of earlier runs),
    // else the Machine table's.
    const section = results.split(/\n## /).find((part) => rowValue(part, FAST_COMMAND_LABEL) !== undefined) ?? "";
    const date =
      /^Measured on (\d{4}-\d{2}-\d{2})/m.exec(section)?.[1] ?? /^\| Date \| (\d{4}-\d{2}-\d{2})/m.exec(results)?.[1];
    if (!date) throw new Error("bench/RESULTS.md: no Date row in its Machine table");
    return { source: "bench run", date, fastMs: fast, wholeMs: whole };
  }
  const heading = /^### The fast command \(`npm test`\), measured by hand on (\d{4}-\d{2}-\d{2})$/m.exec(results);
  if (!heading)
    throw new Error(
      `bench/RESULTS.md times neither test command: no rows "${FAST_COMMAND_LABEL}" and "${WHOLE_SET_LABEL}" (a full npm run bench writes them) and no section measured by hand`,
    );
  const section = results.slice(heading.index).split(/\n## /)[0]!;
  const cold = /^\| wall time, [^|]*\(cold\) \| ([\d,]+) \| ms \|$/m.exec(section)?.[1];
  const rerun = /^\| wall time, an everyday re-run[^|]* \| ([\d,]+) \| ms \|$/m.exec(section)?.[1];
  const wholeByHand = /`npm run test:all` [\s\S]*? took ([\d,]+) ms wall/.exec(section)?.[1];
  if (!cold || !rerun || !wholeByHand)
    throw new Error("bench/RESULTS.md's section measured by hand lacks the cold, re-run or test:all wall time");
  return {
    source: "measured by hand",
    date: heading[1]!,
    fastMs: number(cold),
    fastRerunMs: number(rerun),
    wholeMs: number(wholeByHand),
  };
}

const seconds = (ms: number) => Math.round(ms / 1000);

/** The README's words for the times: rounded to whole seconds, the whole set to the minute above. */
export function readmeTimingSentence(timings: TestTimings): string {
  const fast =
    timings.fastRerunMs === undefined
      ? `about ${seconds(timings.fastMs)} s on two cores`
      : `about ${seconds(timings.fastMs)} s on two cores from cold and ${seconds(timings.fastRerunMs)} s on a re-run`;
  const how = timings.source === "bench run" ? "a full `npm run bench`" : "measured by hand";
  return `${fast} (the whole set: under ${Math.ceil(timings.wholeMs / 60_000)} minutes; ${how} on ${timings.date})`;
}
