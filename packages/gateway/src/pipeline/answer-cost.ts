/**
 * The cost on the answer (`usage.cost` in the body, `X-Gateway-Cost` on JSON answers): what the
 * ledger charges for the request, in US dollars. Every attempt that charged has its own ledger
 * row (one that failed after producing output, and the one that answered); the request's cost
 * is their sum. Attempts that were released (failed before any output) cost nothing.
 */
import { isJsonObject, type JsonObject, type ServedTier, type Usage } from '@app/provider-adapters';
import type { UpstreamCall } from './upstream-call.ts';

export const COST_HEADER = 'x-gateway-cost';

const MICROS_PER_USD = 1_000_000;

/**
 * Micro-dollars the request's ended attempts charged, plus what the running attempt will charge
 * for `usage` when it has not ended yet (a stream's usage chunk is written before its end).
 */
export function requestCostMicros(call: UpstreamCall, usage?: Usage, servedTier?: ServedTier): number {
  let micros = 0;
  for (const attempt of call.init.context.attempts) micros += Math.ceil(attempt.costMicros ?? 0);
  const { outcome } = call.init;
  if (!outcome.closed && usage) micros += Math.ceil(outcome.costOf(usage, servedTier));
  return micros;
}

/** Whole micro-dollars as a JSON number of dollars (123 -> 0.000123, exact to the micro-dollar). */
export function usdOf(micros: number): number {
  return micros / MICROS_PER_USD;
}

/** The header's decimal string: `0.000123`, `1.5`, `0` (never an exponent). */
export function usdDecimal(micros: number): string {
  const whole = Math.floor(micros / MICROS_PER_USD);
  let fraction = micros % MICROS_PER_USD;
  if (fraction === 0) return String(whole);
  let digits = 6;
  while (fraction % 10 === 0) [fraction, digits] = [fraction / 10, digits - 1];
  return `${whole}.${String(fraction).padStart(digits, '0')}`;
}

/**
 * `body` with `cost` added to its usage object under `key` (`usage`, `usageMetadata`), when it
 * has one and the cost is known; a shallow copy of the two objects, `body` is not changed.
 */
export function withCost<T extends JsonObject>(body: T, key: string, cost: number | undefined): T {
  const usage = body[key];
  if (cost === undefined || !isJsonObject(usage)) return body;
  return { ...body, [key]: { ...usage, cost } };
}
