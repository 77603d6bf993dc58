/**
 * Circuit breaker per upstream endpoint (provider, or provider/family when a family has its
 * own endpoint). Closed -> open after N consecutive server/timeout/connection/auth failures (an
 * endpoint whose credentials are refused fails every request until it is reconfigured); after
 * the cooldown one trial request goes through (half-open): success closes the circuit, failure
 * reopens it for another cooldown. Client errors and rate limits say nothing about the
 * upstream's health, so they neither count nor reset; a trial that ends with one, or that is
 * never sent, hands the trial to the next request instead of holding it for a cooldown.
 *
 * State is per process on purpose: each instance sees its own connections fail, and a shared
 * breaker would need a Redis round trip on the chat path's latency budget.
 */
import type { UpstreamFailureKind } from '../contracts.ts';

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerOptions {
  readonly failures: number;
  readonly cooldownMs: number;
  readonly now: () => number;
  /** Told when a circuit opens or closes again (operators want both in the log). */
  readonly onChange?: (key: string, state: 'open' | 'closed') => void;
}

interface Circuit {
  consecutive: number;
  openedAt: number | undefined;
  /** When the half-open trial was handed out; a lost report frees it after another cooldown. */
  trialAt: number | undefined;
}

const COUNTED: ReadonlySet<string> = new Set<UpstreamFailureKind>([
  'server',
  'timeout',
  'connection',
  'auth',
]);

export class CircuitBreakers {
  readonly #circuits = new Map<string, Circuit>();
  readonly #options: BreakerOptions;

  constructor(options: BreakerOptions) {
    this.#options = options;
  }

  state(key: string): BreakerState {
    const circuit = this.#circuits.get(key);
    if (circuit?.openedAt === undefined) return 'closed';
    const now = this.#options.now();
    if (now - circuit.openedAt < this.#options.cooldownMs) return 'open';
    return 'half-open';
  }

  /** Whether a request may go to this endpoint now (no side effect: used to filter candidates). */
  allows(key: string): boolean {
    const circuit = this.#circuits.get(key);
    const state = this.state(key);
    if (state !== 'half-open' || circuit === undefined) return state === 'closed';
    return circuit.trialAt === undefined || this.#options.now() - circuit.trialAt >= this.#options.cooldownMs;
  }

  /** Marks the chosen endpoint's trial as taken when its circuit is half-open. */
  acquire(key: string): void {
    const circuit = this.#circuits.get(key);
    if (circuit && this.state(key) === 'half-open') circuit.trialAt = this.#options.now();
  }

  /** The trial was not used to learn anything (nothing sent, or a client error): the next request takes it. */
  release(key: string): void {
    const circuit = this.#circuits.get(key);
    if (circuit && this.state(key) === 'half-open') circuit.trialAt = undefined;
  }

  /** Milliseconds until an open circuit lets a trial through (for Retry-After). */
  retryAfterMs(key: string): number {
    const openedAt = this.#circuits.get(key)?.openedAt;
    if (openedAt === undefined) return 0;
    return Math.max(0, openedAt + this.#options.cooldownMs - this.#options.now());
  }

  record(key: string, outcome: 'ok' | UpstreamFailureKind): void {
    if (outcome === 'ok') {
      const wasOpen = this.#circuits.get(key)?.openedAt !== undefined;
      this.#circuits.delete(key);
      if (wasOpen) this.#options.onChange?.(key, 'closed');
      return;
    }
    if (!COUNTED.has(outcome)) {
      this.release(key);
      return;
    }
    const state = this.state(key);
    // Late reports of calls that started before the circuit opened must not extend the cooldown.
    if (state === 'open') return;
    const circuit = this.#circuits.get(key) ?? { consecutive: 0, openedAt: undefined, trialAt: undefined };
    this.#circuits.set(key, circuit);
    circuit.consecutive += 1;
    if (state === 'half-open' || circuit.consecutive >= this.#options.failures) {
      circuit.openedAt = this.#options.now();
      circuit.trialAt = undefined;
      this.#options.onChange?.(key, 'open');
    }
  }
}
