/**
 * One cached OAuth access token (one credential, one scope set), refreshed before it expires.
 * Peers that reuse a token until it has expired fail every request at the hour mark; here a
 * token is replaced once less than five minutes (or half its lifetime) remain, in the
 * background while it is still usable, and concurrent callers share a single refresh.
 */
import type { ObtainedSecrets } from './secret-redactor.ts';
import { CredentialError } from './signer.ts';

/** A token as fetched; durations are relative so that fetchers on the wall clock and the
 * cache on an injected clock agree. */
export interface FreshToken {
  readonly token: string;
  readonly lifetimeMs: number;
  /** When the issuer asks for an earlier refresh (Entra `refresh_in`). */
  readonly refreshInMs?: number;
}

export interface TokenCacheOptions {
  /** Obtains a new token; rejects with CredentialError. Never aborted by one caller. */
  readonly fetch: () => Promise<FreshToken>;
  readonly now: () => number;
  /** For messages: which credential this is (never a secret). */
  readonly label: string;
  /** Told each token obtained (the gateway redacts them from upstream text). */
  readonly obtained?: ObtainedSecrets;
}

const REFRESH_MARGIN_MS = 5 * 60_000;
/** Below this remaining lifetime a token is not sent: callers wait for the new one. */
const MIN_USABLE_MS = 30_000;
/** After a failed refresh, callers within this window get the same error (no stampede). */
const FAILURE_HOLD_MS = 1_000;
/** A background refresh that failed is not retried sooner than this. */
const BACKGROUND_RETRY_MS = 10_000;

interface Cached {
  readonly token: string;
  readonly refreshAt: number;
  readonly expiresAt: number;
}

// Tokens go into an Authorization header: printable ASCII only.
const TOKEN_CHARS = /^[\x21-\x7e]+$/;

export class TokenCache {
  readonly #options: TokenCacheOptions;
  #cached: Cached | undefined;
  #inFlight: Promise<Cached> | undefined;
  #failure: { readonly at: number; readonly error: unknown } | undefined;
  #closed = false;

  constructor(options: TokenCacheOptions) {
    this.#options = options;
  }

  /** A valid token: cached, or fetched (shared with concurrent callers). */
  async get(signal?: AbortSignal): Promise<string> {
    if (this.#closed) throw new CredentialError(`${this.#options.label}: signer is closed`);
    signal?.throwIfAborted();
    const now = this.#options.now();
    const cached = this.#cached;
    if (cached !== undefined && now < cached.refreshAt) return cached.token;
    if (cached !== undefined && now < cached.expiresAt - MIN_USABLE_MS) {
      this.#refreshInBackground(now);
      return cached.token;
    }
    if (
      this.#inFlight === undefined &&
      this.#failure !== undefined &&
      now - this.#failure.at < FAILURE_HOLD_MS
    ) {
      throw this.#failure.error;
    }
    const fresh = await raceAbort(this.#inFlight ?? this.#refresh(), signal);
    return fresh.token;
  }

  /** Drops the token; later get() calls reject. */
  close(): void {
    this.#closed = true;
    this.#cached = undefined;
  }

  #refreshInBackground(now: number): void {
    if (this.#inFlight !== undefined) return;
    if (this.#failure !== undefined && now - this.#failure.at < BACKGROUND_RETRY_MS) return;
    // The failure is recorded by #refresh; the current token stays in use until it expires.
    this.#refresh().catch(() => {});
  }

  #refresh(): Promise<Cached> {
    const startedAt = this.#options.now();
    const promise = this.#options
      .fetch()
      .then((fresh) => this.#store(fresh, startedAt))
      .catch((error: unknown) => {
        this.#failure = { at: this.#options.now(), error };
        throw error;
      })
      .finally(() => {
        if (this.#inFlight === promise) this.#inFlight = undefined;
      });
    this.#inFlight = promise;
    return promise;
  }

  #store(fresh: FreshToken, startedAt: number): Cached {
    const { label } = this.#options;
    if (!TOKEN_CHARS.test(fresh.token))
      throw new CredentialError(`${label}: the token endpoint returned an unusable token`);
    if (!(fresh.lifetimeMs > MIN_USABLE_MS))
      throw new CredentialError(`${label}: the token endpoint returned an expired or short-lived token`);
    // Lifetimes count from the request's start: the token may have been issued just before.
    const expiresAt = startedAt + fresh.lifetimeMs;
    let refreshAt = expiresAt - Math.min(REFRESH_MARGIN_MS, fresh.lifetimeMs / 2);
    if (fresh.refreshInMs !== undefined && fresh.refreshInMs > 0)
      refreshAt = Math.min(refreshAt, startedAt + fresh.refreshInMs);
    const cached = { token: fresh.token, refreshAt, expiresAt };
    this.#options.obtained?.update([fresh.token]);
    if (!this.#closed) this.#cached = cached;
    this.#failure = undefined;
    return cached;
  }
}

/** Waits for a shared promise, giving up (without cancelling it) when this caller aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
