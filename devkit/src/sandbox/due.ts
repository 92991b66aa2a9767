/**
 * The pending tasks as a binary min-heap kept in the state's own `tasks` array, ordered by due time and then by
 * id (the order they were scheduled in), so the next due task is found in O(log n) however many are pending.
 * The array stays a plain list of tasks, so a state file holds what it always held; one read back in any order
 * is put in heap order by `heapify`.
 */
import type { Task } from "./state.ts";

function before(a: Task, b: Task): boolean {
  return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.id < b.id);
}

function siftUp(heap: Task[], index: number): void {
  const task = heap[index]!;
  while (index > 0) {
    const parent = (index - 1) >> 1;
    if (!before(task, heap[parent]!)) break;
    heap[index] = heap[parent]!;
    index = parent;
  }
  heap[index] = task;
}

function siftDown(heap: Task[], index: number): void {
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
export function heapify(heap: Task[]): Task[] {
  for (let index = (heap.length >> 1) - 1; index >= 0; index--) siftDown(heap, index);
  return heap;
}

export function pushTask(heap: Task[], task: Task): void {
  heap.push(task);
  siftUp(heap, heap.length - 1);
}

/** The task due first (lowest due time, then lowest id), without removing it. */
export function peekTask(heap: readonly Task[]): Task | undefined {
  return heap[0];
}

/** Removes and returns the task due first. */
export function popTask(heap: Task[]): Task | undefined {
  const first = heap[0];
  const last = heap.pop();
  if (first !== undefined && last !== undefined && heap.length > 0) {
    heap[0] = last;
    siftDown(heap, 0);
  }
  return first;
}
