/** Load generation and statistics of the gateway benchmark (undici pools, no extra tool). */
import { Pool } from 'undici';

export interface Target {
  readonly pool: Pool;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export function target(
  baseUrl: string,
  headers: Record<string, string>,
  body: unknown,
  connections: number,
): Target {
  const url = new URL(baseUrl);
  return {
    pool: new Pool(url.origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 }),
    path: `${url.pathname.replace(/\/$/, '')}/chat/completions`,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}

export interface Timing {
  /** First body bytes (for a stream: the first SSE event), ms. */
  readonly first: number;
  readonly total: number;
}

/** One request, read to the end; throws on a non-200 so a broken run cannot look fast. */
export async function once(t: Target): Promise<Timing> {
  const started = performance.now();
  const response = await t.pool.request({ method: 'POST', path: t.path, headers: t.headers, body: t.body });
  let first = 0;
  for await (const _ of response.body) {
    if (first === 0) first = performance.now() - started;
  }
  if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode} from ${t.path}`);
  return { first, total: performance.now() - started };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export interface Interleaved {
  readonly direct: Timing[];
  readonly gateway: Timing[];
}

/** Concurrency 1, alternating direct and gateway requests so drift and noise hit both alike. */
export async function interleaved(direct: Target, gateway: Target, pairs: number): Promise<Interleaved> {
  const out: Interleaved = { direct: [], gateway: [] };
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) {
      out.direct.push(await once(direct));
      out.gateway.push(await once(gateway));
    } else {
      out.gateway.push(await once(gateway));
      out.direct.push(await once(direct));
    }
  }
  return out;
}

/** Requests per second with `concurrency` requests always in flight, for `seconds`. */
export async function throughput(t: Target, concurrency: number, seconds: number): Promise<number> {
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
  return done / ((performance.now() - started) / 1000);
}
