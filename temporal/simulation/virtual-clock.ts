import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { Heap } from 'heap-js';

interface Due {
  at: number;
  seq: number;
  fire: () => void;
  cancelled: boolean;
}

/**
 * One clock for every run of a simulation. Time jumps from one due item (a timer, a trigger, a
 * user's event) to the next, in time order (ties in the order they were scheduled), and every run
 * settles between two items: the simulated activities answer from memory, so a run that has
 * reacted to an item is blocked on its next timer or wait once the microtask queue is empty.
 */
export class VirtualClock {
  private readonly queue = new Heap<Due>((a, b) => a.at - b.at || a.seq - b.seq);
  private seq = 0;

  constructor(private current: number) {}

  now(): number {
    return this.current;
  }

  /** Runs `fire` at `time` (at once, i.e. at the next step, if `time` has passed). */
  at(time: number, fire: () => void): { cancel(): void } {
    const due: Due = { at: Math.max(time, this.current), seq: this.seq++, fire, cancelled: false };
    this.queue.push(due);
    return { cancel: () => (due.cancelled = true) };
  }

  /**
   * Fires every item due up to `until` in time order, then leaves the clock at `until`. `settled`
   * resolves once the runs have reacted to an item (by default: once the microtask queue is empty).
   */
  async runUntil(until: number, settled: () => Promise<unknown> = () => nextMacrotask()): Promise<void> {
    await settled();
    for (let due = this.queue.peek(); due !== undefined && due.at <= until; due = this.queue.peek()) {
      this.queue.pop();
      if (due.cancelled) continue;
      this.current = due.at;
      due.fire();
      await settled();
    }
    this.current = Math.max(this.current, until);
  }
}
