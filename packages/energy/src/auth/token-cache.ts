import { LRUCache } from 'lru-cache';

/** Token hashes remembered at most; the least recently used is dropped beyond it. */
export const TOKEN_CACHE_ENTRIES = 10_000;

/**
 * Which user a token hash belongs to, for `ttlMs` after it was read from the database, so the
 * token lookup is not a database read on every call. Only valid tokens are remembered (an
 * unknown token always reaches the database: a new token works at once and guessing fills
 * nothing). Revocation in this process is immediate: the repository that retires tokens
 * forgets them here in the same call. Another process that retires a token (a second
 * instance, `energyctl`) is seen here once the entry expires, so `ttlMs` bounds how long a
 * retired token may still be accepted by this process.
 */
export interface TokenCache {
  userIdFor(tokenHash: string): number | undefined;
  /** Taken before a database read and handed to `remember` with its result. */
  generation(): number;
  /**
   * Remembers a read, unless a token was retired while it was in flight (the generation moved):
   * that read may predate the retirement, and caching it would revive a retired token.
   */
  remember(tokenHash: string, userId: number, readAtGeneration: number): void;
  forget(tokenHashes: Iterable<string>): void;
}

/** The cache for a TTL in milliseconds; undefined when the TTL is 0 (every call reads the database). */
export function tokenCache(
  ttlMs: number,
  options: { max?: number; now?: () => number } = {},
): TokenCache | undefined {
  if (ttlMs <= 0) return undefined;
  const entries = new LRUCache<string, number>({
    max: options.max ?? TOKEN_CACHE_ENTRIES,
    ttl: ttlMs,
    // Expiry counts from the database read, never from the last use.
    updateAgeOnGet: false,
    // A given clock (tests) is read on every check; lru-cache otherwise reuses a reading for 1 ms.
    ...(options.now ? { perf: { now: options.now }, ttlResolution: 0 } : {}),
  });
  let generation = 0;
  return {
    userIdFor: (tokenHash) => entries.get(tokenHash),
    generation: () => generation,
    remember(tokenHash, userId, readAtGeneration) {
      if (readAtGeneration === generation) entries.set(tokenHash, userId);
    },
    forget(tokenHashes) {
      generation++;
      for (const tokenHash of tokenHashes) entries.delete(tokenHash);
    },
  };
}
