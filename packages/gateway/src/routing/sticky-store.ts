/**
 * Where the sticky provider choices live: one per (user, project, family), and one per agent
 * session of it. In process by default; in Redis when the gateway has one, so every instance
 * keeps the same choice. Both expire a choice after `idleMs` without use.
 */
import type { Redis } from '@app/db';
import { isProviderId, type ProviderId } from '../contracts.ts';

export interface StickyKey {
  readonly userId: number;
  readonly projectId: number;
  readonly family: string;
  /** The agent session (routing/session.ts): its own choice, beside the user's. */
  readonly session?: string | undefined;
}

export interface StickyStore {
  /** The current choice, refreshing its idle expiry; undefined when none or expired. */
  get(key: StickyKey): Promise<ProviderId | undefined>;
  set(key: StickyKey, provider: ProviderId): Promise<void>;
  /** Forgets the choice if it is still `provider` (another request may have moved it). */
  drop(key: StickyKey, provider: ProviderId): Promise<void>;
  close(): Promise<void>;
}

/** Session ids are printable ASCII without space (session.ts): the `:s:` part cannot be forged. */
function keyText(key: StickyKey): string {
  const base = `sticky:${key.userId}:${key.projectId}:${key.family}`;
  return key.session === undefined ? base : `${base}:s:${key.session}`;
}

/**
 * Entries expire lazily on read and in a sweep every `idleMs`. Sessions are client-made and
 * unbounded in number, so the map also holds at most `maxEntries`: it is kept in order of last
 * use (a read moves its entry to the end) and a new entry past the bound evicts the least
 * recently used one. An evicted choice is only an optimisation lost: it is chosen anew.
 */
export function memoryStickyStore(options: {
  idleMs: number;
  now: () => number;
  /** GATEWAY_STICKY_MAX_ENTRIES; an entry is ~250 bytes, so the default 100,000 is ~25 MB. */
  maxEntries?: number;
}): StickyStore {
  const maxEntries = options.maxEntries ?? 100_000;
  const entries = new Map<string, { provider: ProviderId; usedAt: number }>();
  let sweptAt = options.now();
  const sweep = (now: number) => {
    if (now - sweptAt < options.idleMs) return;
    sweptAt = now;
    for (const [key, entry] of entries) if (now - entry.usedAt >= options.idleMs) entries.delete(key);
  };
  return {
    async get(key) {
      const now = options.now();
      const text = keyText(key);
      const entry = entries.get(text);
      if (!entry) return undefined;
      if (now - entry.usedAt >= options.idleMs) {
        entries.delete(text);
        return undefined;
      }
      entry.usedAt = now;
      entries.delete(text);
      entries.set(text, entry);
      return entry.provider;
    },
    async set(key, provider) {
      const now = options.now();
      sweep(now);
      const text = keyText(key);
      entries.delete(text);
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
      entries.set(text, { provider, usedAt: now });
    },
    async drop(key, provider) {
      const text = keyText(key);
      if (entries.get(text)?.provider === provider) entries.delete(text);
    },
    async close() {
      entries.clear();
    },
  };
}

/**
 * One Redis string per choice (under the client's key prefix) with the idle time as TTL.
 * Reading is one GET; the TTL is refreshed at most once per `refreshMs` per key and instance,
 * so a steady stream of requests does not write Redis each time (the idle expiry is then
 * exact to within `refreshMs`).
 */
export function redisStickyStore(redis: Redis, options: { idleMs: number; now: () => number }): StickyStore {
  const refreshMs = Math.max(1000, Math.floor(options.idleMs / 10));
  const refreshedAt = new Map<string, number>();
  const remember = (text: string, now: number) => {
    if (refreshedAt.size > 100_000) refreshedAt.clear();
    refreshedAt.set(text, now);
  };
  return {
    async get(key) {
      const text = keyText(key);
      const value = await redis.get(text);
      if (value === null || !isProviderId(value)) return undefined;
      const now = options.now();
      const last = refreshedAt.get(text);
      if (last === undefined || now - last >= refreshMs) {
        remember(text, now);
        await redis.pexpire(text, options.idleMs);
      }
      return value;
    },
    async set(key, provider) {
      const text = keyText(key);
      remember(text, options.now());
      await redis.set(text, provider, 'PX', options.idleMs);
    },
    async drop(key, provider) {
      const text = keyText(key);
      refreshedAt.delete(text);
      // Compare-and-delete in one step: another instance may already have chosen anew.
      await redis.eval(
        "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
        1,
        text,
        provider,
      );
    },
    async close() {
      refreshedAt.clear();
    },
  };
}

/**
 * Stickiness is an optimisation, not a reason to fail a request: when the store fails (Redis
 * down), routing continues as if no choice were stored. Failures are logged at most once per
 * `quietMs` so an outage does not flood the log.
 */
export function resilientStickyStore(
  inner: StickyStore,
  options: { warn: (error: unknown, message: string) => void; now: () => number; quietMs?: number },
): StickyStore {
  const quietMs = options.quietMs ?? 10_000;
  let warnedAt = Number.NEGATIVE_INFINITY;
  const failed = (error: unknown) => {
    const now = options.now();
    if (now - warnedAt < quietMs) return;
    warnedAt = now;
    options.warn(error, 'sticky provider store failed; selecting without stickiness');
  };
  return {
    get: (key) =>
      inner.get(key).catch((error: unknown) => {
        failed(error);
        return undefined;
      }),
    set: (key, provider) => inner.set(key, provider).catch(failed),
    drop: (key, provider) => inner.drop(key, provider).catch(failed),
    close: () => inner.close(),
  };
}
