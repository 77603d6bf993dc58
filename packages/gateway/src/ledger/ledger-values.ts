/**
 * How the ledger writes its values: whole micro-dollars, whole milliseconds and ISO times
 * (formatted once per millisecond).
 */
import type { Micros } from '../contracts.ts';

/** Money is kept in whole micro-dollars; estimates round up. */
export function wholeMicros(amount: Micros): number {
  return Number.isFinite(amount) && amount > 0 ? Math.ceil(amount) : 0;
}

/** Durations are stored in whole milliseconds (int4 columns). */
export function wholeMs(ms: number | undefined): number | null {
  return ms === undefined || !Number.isFinite(ms) ? null : Math.max(0, Math.round(ms));
}

/**
 * The current time as an ISO string, formatted once per millisecond: every reservation and
 * settlement stamps its row, and at a few thousand requests/s several share a millisecond.
 */
export function isoClock() {
  let ms = Number.NaN;
  let text = '';
  return {
    iso(): string {
      const now = Date.now();
      if (now !== ms) {
        ms = now;
        text = new Date(now).toISOString();
      }
      return text;
    },
  };
}
