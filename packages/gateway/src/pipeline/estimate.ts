/**
 * Token and cost arithmetic of the ledger. Prices are US dollars per million tokens, which is
 * exactly micro-dollars per token: a cost in micros is tokens x price, rounded up once per
 * request so the ledger never records less than was spent.
 */
import type { Usage } from '@app/provider-adapters';
import type { Micros, Price } from '../contracts.ts';

/** Tokenizer-free estimates: about four characters per token. */
export const CHARS_PER_TOKEN = 4;
/** Web search prices are per 1,000 calls: $/1K calls x 1,000 = micro-dollars per call. */
const MICROS_PER_DOLLAR_PER_K = 1_000;

export function estimateOutputTokens(generatedChars: number): number {
  return Math.ceil(generatedChars / CHARS_PER_TOKEN);
}

export function costMicros(usage: Usage, price: Price): Micros {
  const cached = Math.min(usage.cachedReadTokens, usage.inputTokens);
  const written = Math.min(usage.cacheWriteTokens, usage.inputTokens - cached);
  const raw =
    (usage.inputTokens - cached - written) * price.inputPerMTok +
    cached * price.cachedInputPerMTok +
    written * (price.cacheWritePerMTok ?? price.inputPerMTok) +
    usage.outputTokens * price.outputPerMTok +
    usage.webSearchRequests * (price.webSearchPerKCalls ?? 0) * MICROS_PER_DOLLAR_PER_K;
  // Float noise (0.1 + 0.2) must not round a whole number of micros up by one.
  return Math.max(0, Math.ceil(raw - 1e-6));
}

/**
 * The reservation: the whole prompt at the uncached price, the most output possible, and the
 * most server-side web searches the request may make.
 */
export function reservationMicros(
  promptTokens: number,
  outputTokens: number,
  price: Price,
  webSearches = 0,
): Micros {
  return costMicros(
    {
      inputTokens: promptTokens,
      cachedReadTokens: 0,
      cacheWriteTokens: 0,
      outputTokens,
      reasoningTokens: 0,
      webSearchRequests: webSearches,
    },
    price,
  );
}
