/** Load generation and statistics of the gateway benchmark (undici pools, no extra tool). */
import { Pool } from 'undici';

export interface Target {
  readonly pool: Pool;
  readonly origin: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** The status every answer must have (200, or 402 for the refusals of refusals.ts). */
  readonly expect: number;
}

export function target(
  baseUrl: string,
  headers: Record<string, string>,
  body: unknown,
  connections: number,
  expect = 200,
): Target {
  const url = new URL(baseUrl);
  return {
    pool: new Pool(url.origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 }),
    origin: url.origin,
    path: `${url.pathname.replace(/\/$/, '')}/chat/completions`,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    expect,
  };
}

export interface Timing {
  /** First body bytes (for a stream: the first SSE event), ms. */
  readonly first: number;
  readonly total: number;
}

/** One request, read to the end; throws on another status than expected so a broken run cannot look fast. */
export async function once(t: Target): Promise<Timing> {
  const started = performance.now();
  const response = await t.pool.request({ method: 'POST', path: t.path, headers: t.headers, body: t.body });
  if (response.statusCode !== t.expect) {
    const text = (await response.body.text()).slice(0, 300);
    throw new Error(`HTTP ${response.statusCode} from ${t.origin}${t.path}: ${text}`);
  }
  let first = 0;
  for await (const _ of response.body) {
    if (first === 0) first = performance.now() - started;
  }
  return { first, total: performance.now() - started };
}

/** The middle value (the mean of the two middle ones for an even count); 0 for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Concurrency 1, one request to each target in turn (order rotating) so drift and noise hit all alike. */
export async function interleaved(targets: readonly Target[], rounds: number): Promise<Timing[][]> {
  const out: Timing[][] = targets.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < targets.length; k++) {
      const index = (round + k) % targets.length;
      const t = targets[index] as Target;
      out[index]?.push(await once(t));
    }
  }
  return out;
}

export interface Rate {
  /** Requests per second. */
  readonly rate: number;
  /** Requests completed. */
  readonly requests: number;
}

/** Requests per second with `concurrency` requests always in flight, for `seconds`. */
export async function throughput(t: Target, concurrency: number, seconds: number): Promise<Rate> {
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      await once(t);
      done++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { rate: done / ((performance.now() - started) / 1000), requests: done };
}
