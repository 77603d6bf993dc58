/**
 * The in-process limiter of the embedded default: exact for one instance, with the same sliding
 * windows and answers as the Redis limiter (one shared test suite runs against both). Several
 * instances need the Redis limiter: in-process counts multiply by the number of instances.
 */
import type { Admission, LimitRule, RateLimiter } from '../contracts.ts';
import {
  admission,
  CONCURRENCY_RETRY_MS,
  type Decision,
  type Denial,
  laterDenial,
  type RuleFigures,
  WINDOW_MS,
} from './window-figures.ts';

interface TokenEntry {
  readonly at: number;
  tokens: number;
  live: boolean;
}

/** A queue of timestamped entries, oldest first; shifting is O(1) amortised. */
class Queue<T> {
  #items: T[] = [];
  #head = 0;

  get size(): number {
    return this.#items.length - this.#head;
  }
  at(index: number): T | undefined {
    return this.#items[this.#head + index];
  }
  newest(): T | undefined {
    return this.#items[this.#items.length - 1];
  }
  push(item: T): void {
    this.#items.push(item);
  }
  shiftWhile(expired: (item: T) => boolean, onShift?: (item: T) => void): void {
    while (this.#head < this.#items.length) {
      const item = this.#items[this.#head] as T;
      if (!expired(item)) break;
      onShift?.(item);
      this.#head++;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }
}

class Subject {
  readonly requests = new Queue<number>();
  readonly tokens = new Queue<TokenEntry>();
  tokenSum = 0;
  /** Running requests: id -> lease end (a safety net; finish() is what frees them). */
  readonly running = new Map<string, number>();

  trim(now: number): void {
    const edge = now - WINDOW_MS;
    this.requests.shiftWhile((at) => at <= edge);
    this.tokens.shiftWhile(
      (entry) => entry.at <= edge,
      (entry) => {
        entry.live = false;
        this.tokenSum -= entry.tokens;
      },
    );
    for (const [id, until] of this.running) if (until <= now) this.running.delete(id);
  }

  get empty(): boolean {
    return this.requests.size === 0 && this.tokens.size === 0 && this.running.size === 0;
  }

  figures(now: number): RuleFigures {
    const newestRequest = this.requests.newest();
    const newestTokens = this.tokens.newest();
    return {
      requests: this.requests.size,
      requestsResetMs: newestRequest === undefined ? 0 : newestRequest + WINDOW_MS - now,
      tokens: this.tokenSum,
      tokensResetMs: newestTokens === undefined ? 0 : newestTokens.at + WINDOW_MS - now,
    };
  }

  /** Why this subject cannot take the request now, if it cannot. */
  refusal(rule: LimitRule, tokens: number, now: number, index: number): Denial | undefined {
    const { requestsPerMinute: rpm, tokensPerMinute: tpm, concurrentRequests: concurrency } = rule.limits;
    let denial: Denial | undefined;
    if (rpm !== undefined && this.requests.size + 1 > rpm) {
      const freeing = this.requests.at(this.requests.size - rpm);
      const retryAfterMs = rpm === 0 || freeing === undefined ? undefined : freeing + WINDOW_MS - now;
      denial = laterDenial(denial, { rule: index, dimension: 'requests', retryAfterMs });
    }
    if (tpm !== undefined && this.tokenSum + tokens > tpm) {
      denial = laterDenial(denial, {
        rule: index,
        dimension: 'tokens',
        retryAfterMs: this.#tokensFreeAt(tpm, tokens, now),
      });
    }
    if (concurrency !== undefined && this.running.size + 1 > concurrency) {
      const retryAfterMs = concurrency === 0 ? undefined : CONCURRENCY_RETRY_MS;
      denial = laterDenial(denial, { rule: index, dimension: 'concurrency', retryAfterMs });
    }
    return denial;
  }

  #tokensFreeAt(tpm: number, tokens: number, now: number): number | undefined {
    if (tokens > tpm) return undefined;
    let freed = 0;
    for (let i = 0; i < this.tokens.size; i++) {
      const entry = this.tokens.at(i) as TokenEntry;
      freed += entry.tokens;
      if (this.tokenSum - freed + tokens <= tpm) return entry.at + WINDOW_MS - now;
    }
    // Only running requests' estimates remain: they free when those finish.
    return CONCURRENCY_RETRY_MS;
  }
}

export interface MemoryLimiterOptions {
  /** How long a running request may hold a concurrency slot if it is never finished, ms. */
  readonly leaseMs: number;
  readonly now?: () => number;
}

export function memoryLimiter(options: MemoryLimiterOptions): RateLimiter {
  const now = options.now ?? Date.now;
  const subjects = new Map<string, Subject>();
  let nextId = 0;
  const sweeper = setInterval(() => {
    const at = now();
    for (const [key, subject] of subjects) {
      subject.trim(at);
      if (subject.empty) subjects.delete(key);
    }
  }, WINDOW_MS);
  sweeper.unref();

  function subjectOf(rule: LimitRule): Subject {
    const key = `${rule.scope}:${rule.key}`;
    let subject = subjects.get(key);
    if (!subject) subjects.set(key, (subject = new Subject()));
    return subject;
  }

  async function admit(rules: readonly LimitRule[], tokens: number): Promise<Admission> {
    const at = now();
    const held = rules.map(subjectOf);
    let denial: Denial | undefined;
    held.forEach((subject, index) => {
      subject.trim(at);
      const refused = subject.refusal(rules[index] as LimitRule, tokens, at, index);
      if (refused) denial = laterDenial(denial, refused);
    });
    const id = String(++nextId);
    const entries = denial ? [] : held.map((subject, index) => hold(subject, rules[index] as LimitRule));

    function hold(subject: Subject, rule: LimitRule): TokenEntry | undefined {
      if (rule.limits.requestsPerMinute !== undefined) subject.requests.push(at);
      if (rule.limits.concurrentRequests !== undefined) subject.running.set(id, at + options.leaseMs);
      if (rule.limits.tokensPerMinute === undefined || tokens <= 0) return undefined;
      const entry: TokenEntry = { at, tokens, live: true };
      subject.tokens.push(entry);
      subject.tokenSum += tokens;
      return entry;
    }

    const decision: Decision = { figures: held.map((subject) => subject.figures(at)), denial };
    let finished = false;
    const ticket = {
      finish: async (usedTokens: number) => {
        if (finished) return;
        finished = true;
        held.forEach((subject, index) => {
          subject.running.delete(id);
          const entry = entries[index];
          if (!entry?.live) return;
          const used = Math.max(0, Math.floor(usedTokens));
          subject.tokenSum += used - entry.tokens;
          entry.tokens = used;
        });
      },
    };
    return admission(rules, decision, ticket);
  }

  return {
    admit,
    close: async () => {
      clearInterval(sweeper);
      subjects.clear();
    },
  };
}
