/**
 * Money as text, everywhere the gateway shows it to a person (gatewayctl, messages): amounts are
 * stored in micro-dollars, so they are shown to the micro-dollar, with at least the two decimals
 * of cents: `$0.0001` stays `$0.0001`, never `$0.00`; `$25` is `$25.00`.
 */
const MICROS_PER_USD = 1_000_000;

/** The largest allocation of one bucket, in US dollars: every place that takes one names it. */
export const MAX_ALLOCATION_USD = 1_000_000_000;

export function formatUsd(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(Math.round(micros));
  const whole = Math.floor(abs / MICROS_PER_USD);
  const fraction = String(abs % MICROS_PER_USD)
    .padStart(6, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0');
  return `${sign}$${whole}.${fraction}`;
}
