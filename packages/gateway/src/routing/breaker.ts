/**
 * Circuit breaker per upstream endpoint (provider, or provider/family when a family has its
 * own endpoint). Closed -> open after N consecutive server/timeout/connection failures; after
 * the cooldown one trial request goes through (half-open): success closes the circuit, failure
 * reopens it for another cooldown. Client errors and rate limits say nothing about the
 * upstream's health, so they neither count nor reset; a trial that ends with one, or that is
 * never sent, hands the trial to the next request instead of holding it for a cooldown. An
 * `auth` failure (the upstream refused the gateway's own credentials) opens at once: no retry
 * can succeed until an operator fixes the configuration.
 *
 * The state is held in process memory and every question the request path asks is answered
 * from it. Instances share health by announcing their own changes (`onEvent`) and applying
 * the ones others announce (`applyRemote`); that transport lives outside (health-bus.ts), so
 * the breaker works alone when there is none. The half-open trial stays per instance: sharing
 * it would need a Redis round trip to claim it, and a lost holder would stall the whole fleet.
 */
import type { UpstreamFailureKind } from '../contracts.ts';

export type BreakerState = 'closed' | 'open' | 'half-open';

/**
 * What an instance tells the others: a counted failure that did not open the circuit, an
 * opening, a closing, or a success that reset a non-zero failure count of a closed circuit.
 */
export type HealthEventKind = 'failure' | 'open' | 'close' | 'reset';

export interface HealthEvent {
  readonly key: string;
  readonly kind: HealthEventKind;
  /** When it happened, on the breaker's clock. */
  readonly at: number;
}

/** An event another instance announced; `ageMs` is how long ago it happened there. */
export interface RemoteHealthEvent {
  readonly key: string;
  readonly kind: HealthEventKind;
  readonly ageMs: number;
}

/** Why a circuit opened or closed: operators read a credentials fault differently from an outage. */
export type ChangeCause = 'failures' | 'trial' | 'auth' | 'success' | 'fleet';

export interface BreakerOptions {
  readonly failures: number;
  readonly cooldownMs: number;
  readonly now: () => number;
  /** Told when a circuit opens or closes again (operators want both in the log). */
  readonly onChange?: (key: string, state: 'open' | 'closed', cause: ChangeCause) => void;
  /** Told of every change other instances should apply; never of changes applied from them. */
  readonly onEvent?: (event: HealthEvent) => void;
}

interface Circuit {
  consecutive: number;
  openedAt: number | undefined;
  /** When the half-open trial was handed out; a lost report frees it after another cooldown. */
  trialAt: number | undefined;
}

const COUNTED: ReadonlySet<string> = new Set<UpstreamFailureKind>(['server', 'timeout', 'connection']);

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
      this.#succeeded(key);
      return;
    }
    if (outcome !== 'auth' && !COUNTED.has(outcome)) {
      this.release(key);
      return;
    }
    const state = this.state(key);
    // Late reports of calls that started before the circuit opened must not extend the cooldown.
    if (state === 'open') return;
    const circuit = this.#circuit(key);
    circuit.consecutive += 1;
    if (outcome === 'auth') this.#open(key, circuit, 'auth');
    else if (state === 'half-open') this.#open(key, circuit, 'trial');
    else if (circuit.consecutive >= this.#options.failures) this.#open(key, circuit, 'failures');
    else this.#emit(key, 'failure');
  }

  /**
   * Applies what another instance saw. An opening opens here for what remains of its cooldown;
   * a failure adds to the count of a closed circuit (and, reaching the threshold, opens it
   * here as if seen locally); a closing closes; a reset clears the count of a closed circuit
   * (an open one waits for a closing: the success may predate the opening).
   */
  applyRemote(event: RemoteHealthEvent): void {
    const { key } = event;
    const state = this.state(key);
    switch (event.kind) {
      case 'open': {
        const openedAt = this.#options.now() - Math.max(0, event.ageMs);
        if (state === 'open' || openedAt + this.#options.cooldownMs <= this.#options.now()) return;
        const circuit = this.#circuit(key);
        circuit.openedAt = openedAt;
        circuit.trialAt = undefined;
        this.#options.onChange?.(key, 'open', 'fleet');
        return;
      }
      case 'failure': {
        if (state !== 'closed') return;
        const circuit = this.#circuit(key);
        circuit.consecutive += 1;
        if (circuit.consecutive >= this.#options.failures) this.#open(key, circuit, 'failures');
        return;
      }
      case 'close':
        if (this.#circuits.delete(key) && state !== 'closed')
          this.#options.onChange?.(key, 'closed', 'fleet');
        return;
      case 'reset':
        if (state === 'closed') this.#circuits.delete(key);
    }
  }

  #succeeded(key: string): void {
    const circuit = this.#circuits.get(key);
    if (!circuit) return;
    this.#circuits.delete(key);
    if (circuit.openedAt !== undefined) {
      this.#options.onChange?.(key, 'closed', 'success');
      this.#emit(key, 'close');
    } else if (circuit.consecutive > 0) this.#emit(key, 'reset');
  }

  #circuit(key: string): Circuit {
    let circuit = this.#circuits.get(key);
    if (!circuit) {
      circuit = { consecutive: 0, openedAt: undefined, trialAt: undefined };
      this.#circuits.set(key, circuit);
    }
    return circuit;
  }

  #open(key: string, circuit: Circuit, cause: ChangeCause): void {
    circuit.openedAt = this.#options.now();
    circuit.trialAt = undefined;
    this.#options.onChange?.(key, 'open', cause);
    this.#emit(key, 'open');
  }

  #emit(key: string, kind: HealthEventKind): void {
    this.#options.onEvent?.({ key, kind, at: this.#options.now() });
  }
}
