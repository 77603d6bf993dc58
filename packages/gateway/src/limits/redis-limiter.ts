/**
 * The limiter shared by gateway instances: every decision is one atomic Redis script
 * (redis-scripts.ts), so two or twenty instances admit exactly what one would.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from '@app/db';
import type { Admission, LimitRule, RateLimiter } from '../contracts.ts';
import { ADMIT_SCRIPT, FINISH_SCRIPT } from './redis-scripts.ts';
import {
  admission,
  CONCURRENCY_RETRY_MS,
  DIMENSIONS,
  type Decision,
  type Denial,
  limitArgs,
  type RuleFigures,
  WINDOW_MS,
} from './window-figures.ts';

export interface RedisLimiterOptions {
  /** How long a running request may hold a concurrency slot if its instance dies, ms. */
  readonly leaseMs: number;
}

class Script {
  readonly source: string;
  readonly #sha: string;
  constructor(source: string) {
    this.source = source;
    this.#sha = createHash('sha1').update(source).digest('hex');
  }

  /** EVALSHA, loading the script on the server's first NOSCRIPT (after a restart or flush). */
  async run(redis: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.#sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

const ADMIT = new Script(ADMIT_SCRIPT);
const FINISH = new Script(FINISH_SCRIPT);

function keysOf(rule: LimitRule): [string, string, string, string] {
  const base = `rl:${rule.scope}:${rule.key}`;
  return [`${base}:r`, `${base}:t`, `${base}:s`, `${base}:c`];
}

function numbers(reply: unknown): number[] {
  if (!Array.isArray(reply)) throw new Error('rate limit script: unexpected reply');
  return reply.map((value) => Number(value));
}

/** The script's flat reply: status, now, denied rule, dimension, retry, then 4 figures per rule. */
function decode(reply: unknown, rules: number): { at: number; decision: Decision } {
  const [status = 0, at = 0, rule = -1, dimension = 0, retry = -1, ...rest] = numbers(reply);
  const figures: RuleFigures[] = [];
  for (let i = 0; i < rules; i++) {
    const [requests = 0, requestsResetMs = 0, tokens = 0, tokensResetMs = 0] = rest.slice(i * 4, i * 4 + 4);
    figures.push({ requests, requestsResetMs, tokens, tokensResetMs });
  }
  const denial: Denial | undefined =
    status === 1
      ? undefined
      : {
          rule,
          dimension: DIMENSIONS[dimension - 1] ?? 'requests',
          retryAfterMs: retry < 0 ? undefined : retry,
        };
  return { at, decision: { figures, denial } };
}

export function redisLimiter(redis: Redis, options: RedisLimiterOptions): RateLimiter {
  async function admit(rules: readonly LimitRule[], tokens: number): Promise<Admission> {
    const id = randomUUID();
    const estimate = Math.max(0, Math.floor(tokens));
    const keys = rules.flatMap(keysOf);
    const args = [
      WINDOW_MS,
      id,
      estimate,
      options.leaseMs,
      CONCURRENCY_RETRY_MS,
      ...rules.flatMap(limitArgs),
    ];
    const { at, decision } = decode(await ADMIT.run(redis, keys, args), rules.length);
    let finished = false;
    const ticket = {
      finish: async (usedTokens: number) => {
        if (finished || decision.denial) return;
        finished = true;
        const used = Math.max(0, Math.floor(usedTokens));
        const finishKeys = rules.flatMap((rule) => keysOf(rule).slice(1));
        await FINISH.run(redis, finishKeys, [id, estimate, used, at]);
      },
    };
    return admission(rules, decision, ticket);
  }
  return { admit, close: async () => {} };
}
