/**
 * Where the development provider keeps its state (interactions, sessions, grants, codes, tokens):
 * in this process's memory, on purpose: it is a development tool, and a restart signing everyone
 * out of it and asking for consent again is documented. Configured explicitly, as oidc-provider
 * asks of every deployment: left to its quick-start store, it prints a raw "you MUST change it"
 * warning to the console at the first sign-in.
 */
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';

interface Entry {
  readonly payload: AdapterPayload;
  /** Epoch milliseconds; Infinity when oidc-provider gave no lifetime. */
  readonly expiresAt: number;
}

/** What a grant covers: revoking the grant removes them (oidc-provider's own list). */
const GRANT_BOUND = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);

/** One store for every model of one provider instance; `now` is for tests. */
export function memoryAdapter(now: () => number = Date.now): AdapterFactory {
  const entries = new Map<string, Entry>();
  /** Secondary keys (a session's uid, a device flow's user code) to the entry's key. */
  const aliases = new Map<string, string>();

  const live = (key: string | undefined): AdapterPayload | undefined => {
    const entry = key === undefined ? undefined : entries.get(key);
    if (!entry || !key) return undefined;
    if (entry.expiresAt > now()) return entry.payload;
    entries.delete(key);
    return undefined;
  };
  // Expired entries go when the next one is written: the store holds only what is still valid.
  const sweep = () => {
    const time = now();
    for (const [key, entry] of entries) if (entry.expiresAt <= time) entries.delete(key);
    for (const [alias, key] of aliases) if (!entries.has(key)) aliases.delete(alias);
  };

  return (model: string): Adapter => {
    const keyOf = (id: string) => `${model}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        sweep();
        const key = keyOf(id);
        const expiresAt = expiresIn === undefined ? Infinity : now() + expiresIn * 1000;
        entries.set(key, { payload, expiresAt });
        if (model === 'Session' && payload.uid) aliases.set(`uid:${payload.uid}`, key);
        if (payload.userCode) aliases.set(`userCode:${payload.userCode}`, key);
      },
      find: async (id) => live(keyOf(id)),
      findByUid: async (uid) => live(aliases.get(`uid:${uid}`)),
      findByUserCode: async (userCode) => live(aliases.get(`userCode:${userCode}`)),
      async consume(id) {
        const payload = live(keyOf(id));
        if (payload) payload.consumed = Math.floor(now() / 1000);
      },
      async destroy(id) {
        entries.delete(keyOf(id));
      },
      async revokeByGrantId(grantId) {
        for (const [key, entry] of entries) {
          const entryModel = key.slice(0, key.indexOf(':'));
          if (entry.payload.grantId === grantId && GRANT_BOUND.has(entryModel)) entries.delete(key);
        }
      },
    };
  };
}
