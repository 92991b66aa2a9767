/**
 * The pending tasks as a binary min-heap in a plain array, ordered by due time and then by id (the order they were
 * scheduled in), so the next due task is found in O(log n) however many are pending. Tasks read back in any order
 * are put in heap order by `heapify`.
 */

/** What orders a task: when it is due, then its number. */
interface Task {
  dueAt: number;
  id: number;
}

function before(a: Task, b: Task): boolean {
  return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.id < b.id);
}

function siftUp<T extends Task>(heap: T[], index: number): void {
  const task = heap[index]!;
  while (index > 0) {
    const parent = (index - 1) >> 1;
    if (!before(task, heap[parent]!)) break;
    heap[index] = heap[parent]!;
    index = parent;
  }
  heap[index] = task;
}

function siftDown<T extends Task>(heap: T[], index: number): void {
  const task = heap[index]!;
  const length = heap.length;
  for (;;) {
    const left = 2 * index + 1;
    if (left >= length) break;
    const right = left + 1;
    const child = right < length && before(heap[right]!, heap[left]!) ? right : left;
    if (!before(heap[child]!, task)) break;
    heap[index] = heap[child]!;
    index = child;
  }
  heap[index] = task;
}

/** Puts an array of tasks in any order into heap order, in place. */
export function heapify<T extends Task>(heap: T[]): T[] {
  for (let index = (heap.length >> 1) - 1; index >= 0; index--) siftDown(heap, index);
  return heap;
}

export function pushTask<T extends Task>(heap: T[], task: T): void {
  heap.push(task);
  siftUp(heap, heap.length - 1);
}

/** The task due first (lowest due time, then lowest id), without removing it. */
export function peekTask<T extends Task>(heap: readonly T[]): T | undefined {
  return heap[0];
}

/** Removes and returns the task due first. */
export function popTask<T extends Task>(heap: T[]): T | undefined {
  const first = heap[0];
  const last = heap.pop();
  if (first !== undefined && last !== undefined && heap.length > 0) {
    heap[0] = last;
    siftDown(heap, 0);
  }
  return first;
}

/**
 * The pending tasks, the cancelled ones dropped lazily: a cancelled task leaves the store at once, and this heap
 * when it reaches the top, or with all the others at once when they are half of it. `live` says whether a task in
 * the heap is still the store's (not cancelled, not gone with a reset).
 */
export class PendingTasks<T extends Task> {
  private heap: T[] = [];
  /** Tasks in the heap cancelled since (no longer in the store). */
  private stale = 0;
  /** A method, not a function property, so that the heap of a narrower task type is one of its wider type. */
  private readonly store: { live(task: T): boolean };

  constructor(store: { live(task: T): boolean }) {
    this.store = store;
  }

  /** Starts again from these tasks, in any order. */
  replace(tasks: T[]): void {
    this.heap = heapify(tasks);
    this.stale = 0;
  }

  push(task: T): void {
    pushTask(this.heap, task);
  }

  has(task: T): boolean {
    return this.heap.includes(task);
  }

  /** `count` tasks of the heap were cancelled (taken from the store). */
  cancelled(count: number): void {
    this.stale += count;
    if (this.stale > 64 && this.stale * 2 > this.heap.length) {
      this.heap = heapify(this.heap.filter((task) => this.store.live(task)));
      this.stale = 0;
    }
  }

  /** The heap's top once the tasks cancelled at its top are dropped. */
  top(): T | undefined {
    for (;;) {
      const next = peekTask(this.heap);
      if (next === undefined || this.stale === 0 || this.store.live(next)) return next;
      popTask(this.heap);
      this.stale--;
    }
  }

  pop(): T | undefined {
    return popTask(this.heap);
  }

  /** The live tasks, in no particular order. */
  all(): readonly T[] {
    this.top();
    return this.stale === 0 ? this.heap : this.heap.filter((task) => this.store.live(task));
  }
}
