/**
 * Chaos: one provider of a family fails half its answers (429, 503, 529, a reset connection, a
 * timeout waiting for headers) while the other provider of the model is healthy. Automatic
 * selection must absorb it: JSON and streamed, at least 99.9% of 1,000 requests succeed, the
 * ledger holds exactly the served attempts' charges, and no reservation is left open.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, test } from 'node:test';
import { type ChatTestApp, localUpstream, startChatApp } from '../front-doors/chat-completions/testing.ts';

const FAULTS = ['429', '503', '529', 'reset', 'header-timeout'] as const;
type Fault = (typeof FAULTS)[number];
const HEADER_TIMEOUT_MS = 150;

/** mulberry32: a seeded generator, so a failing run can be replayed exactly. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const USAGE = { prompt_tokens: 120, completion_tokens: 30 };

function succeed(response: ServerResponse, stream: boolean): void {
  const base = { id: 'chatcmpl-chaos', created: 1, model: 'gpt-5.4-2026-03-05' };
  if (!stream) {
    const message = { role: 'assistant', content: 'steady' };
    const body = { ...base, object: 'chat.completion', usage: USAGE };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ...body, choices: [{ index: 0, message, finish_reason: 'stop' }] }));
    return;
  }
  const chunk = (data: object) =>
    `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', ...data })}\n\n`;
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.end(
    chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'steady' } }] }) +
      chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) +
      chunk({ choices: [], usage: USAGE }) +
      'data: [DONE]\n\n',
  );
}

function fail(fault: Fault, request: IncomingMessage, response: ServerResponse): void {
  const error = (status: number, extra: Record<string, string> = {}) =>
    response
      .writeHead(status, { 'content-type': 'application/json', ...extra })
      .end(JSON.stringify({ error: { message: 'chaos', type: 'server_error' } }));
  if (fault === '429') error(429, { 'retry-after': '1' });
  else if (fault === '503') error(503);
  else if (fault === '529') error(529);
  else if (fault === 'reset') request.socket.destroy();
  // Answers long after the gateway stopped waiting for headers.
  else setTimeout(() => request.socket.destroy(), HEADER_TIMEOUT_MS * 4).unref();
}

interface Chaos {
  readonly url: string;
  readonly injected: Map<Fault, number>;
  served: number;
}

async function chaoticUpstream(t: Parameters<typeof localUpstream>[0], seed: number): Promise<Chaos> {
  const random = seeded(seed);
  const chaos: Chaos = { url: '', injected: new Map(), served: 0 };
  const url = await localUpstream(t, (request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString()) as { stream?: boolean };
      if (random() < 0.5) {
        const fault = FAULTS[Math.floor(random() * FAULTS.length)] ?? '503';
        chaos.injected.set(fault, (chaos.injected.get(fault) ?? 0) + 1);
        fail(fault, request, response);
        return;
      }
      chaos.served += 1;
      succeed(response, body.stream === true);
    });
  });
  return Object.assign(chaos, { url });
}

/** The chaotic server is `developer`'s OpenAI endpoint; `cloud_c` (Azure, simulated) is healthy. */
async function gatewayWithChaos(t: Parameters<typeof localUpstream>[0], chaos: Chaos): Promise<ChatTestApp> {
  // Each request starts a new conversation: the sticky choice lapses between requests (the
  // routing clock moves past the idle time), so every request first goes to the provider with
  // the most budget, the chaotic one, instead of staying where the last failover went.
  let clock = Date.now();
  const gateway = await startChatApp({
    behaviour: { firstTokenDelayMs: 0, tokenDelayMs: 0, replyTokens: 8 },
    allocations: { developer: 1_000, cloud_c: 100 },
    routing: { stickyIdleSeconds: 1 },
    now: () => (clock += 1_500),
    editUpstreams: (file) => {
      const developer = file.providers.developer;
      if (developer)
        developer.vendors.openai = {
          adapter: 'openai-compatible',
          baseUrl: chaos.url,
          timeoutMs: HEADER_TIMEOUT_MS,
        };
    },
  });
  t.after(() => gateway.close());
  return gateway;
}

interface Outcome {
  readonly ok: boolean;
  readonly status: number;
  readonly attempts: string;
  readonly costMicros: number;
}

const PRICE = { input: 2.5, output: 15 }; // gpt-5.4 standard, $ per million tokens, both providers

function costOf(usage: { prompt_tokens: number; completion_tokens: number }): number {
  return Math.round(usage.prompt_tokens * PRICE.input + usage.completion_tokens * PRICE.output);
}

async function one(
  gateway: ChatTestApp,
  stream: boolean,
  model = 'gpt-5.4',
): Promise<Outcome & { retryAfter?: string }> {
  const payload = {
    model,
    messages: [{ role: 'user', content: 'Stay up.' }],
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
  const response = await gateway.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: gateway.headers({ 'content-type': 'application/json' }),
    payload: JSON.stringify(payload),
  });
  const attempts = String(response.headers['x-gateway-attempts'] ?? '');
  if (response.statusCode !== 200) {
    const retryAfter = response.headers['retry-after'];
    return {
      ok: false,
      status: response.statusCode,
      attempts,
      costMicros: 0,
      ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
    };
  }
  const usage = stream
    ? (response.body
        .split('\n\n')
        .filter((line) => line.startsWith('data: {'))
        .map((line) => JSON.parse(line.slice(6)) as { usage?: typeof USAGE })
        .find((chunk) => chunk.usage)?.usage ?? { prompt_tokens: -1, completion_tokens: 0 })
    : (response.json() as { usage: typeof USAGE }).usage;
  const complete = stream ? response.body.endsWith('data: [DONE]\n\n') : true;
  return { ok: complete, status: response.statusCode, attempts, costMicros: costOf(usage) };
}

async function run(gateway: ChatTestApp, total: number, concurrency: number): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < total; i = next++) outcomes.push(await one(gateway, i % 2 === 1));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return outcomes;
}

describe('failover under chaos', () => {
  test('1,000 requests, JSON and streamed, against a provider failing half its answers', async (t) => {
    const chaos = await chaoticUpstream(t, 20261128);
    const gateway = await gatewayWithChaos(t, chaos);
    const outcomes = await run(gateway, 1_000, 8);

    const succeeded = outcomes.filter((o) => o.ok).length;
    const failures = outcomes.filter((o) => !o.ok).map((o) => `${o.status} ${o.attempts}`);
    assert.ok(
      succeeded >= 999,
      `${succeeded} of 1,000 succeeded; failed: ${failures.slice(0, 5).join(' | ')}`,
    );
    const injected = [...chaos.injected.values()].reduce((a, b) => a + b, 0);
    // The chaos really happened: every kind of fault, hundreds of times in all.
    for (const fault of FAULTS) assert.ok((chaos.injected.get(fault) ?? 0) > 20, `${fault} injected`);
    assert.ok(injected > 200, `${injected} faults injected`);
    const failedOver = outcomes.filter(
      (o) => o.ok && o.attempts.includes('outcome=ok') && o.attempts.includes(','),
    );
    assert.ok(failedOver.length > 200, `${failedOver.length} answers needed more than one attempt`);

    t.diagnostic(
      `${succeeded}/1000 succeeded; faults injected: ${JSON.stringify(Object.fromEntries(chaos.injected))}; ` +
        `${failedOver.length} answers after more than one attempt`,
    );
    const rows = await gateway.settledUsage(outcomes.length);
    assert.equal(rows.filter((r) => r.status === 'reserved').length, 0, 'no reservation left open');
    const served = rows.filter((r) => r.status === 'ok');
    assert.equal(served.length, succeeded, 'one charged row per served answer');
    const charged = rows.reduce((sum, r) => sum + Number(r.cost_micros), 0);
    const expected = outcomes.filter((o) => o.ok).reduce((sum, o) => sum + o.costMicros, 0);
    assert.equal(charged, expected, 'the ledger holds exactly the served attempts’ charges');
    assert.ok(
      rows.filter((r) => r.status !== 'ok').every((r) => Number(r.cost_micros) === 0),
      'a failed attempt without usage costs nothing',
    );
  });

  test('an explicit provider: never replaced; what its bounded retries do not absorb passes through, with Retry-After', async (t) => {
    const chaos = await chaoticUpstream(t, 7);
    const gateway = await gatewayWithChaos(t, chaos);
    const outcomes: Awaited<ReturnType<typeof one>>[] = [];
    for (let i = 0; i < 40; i++) outcomes.push(await one(gateway, i % 2 === 1, 'gpt-5.4@developer'));
    assert.ok(
      outcomes.every((o) => !o.attempts.includes('cloud_c')),
      'never sent to another provider',
    );
    assert.ok(
      outcomes.every((o) => o.attempts.split(', ').length <= 3),
      'at most the call and 2 retries',
    );
    const failed = outcomes.filter((o) => !o.ok);
    assert.ok(failed.length > 0 && failed.length < 20, `${failed.length} of 40 passed through`);
    for (const o of failed.filter((f) => f.status === 429))
      assert.equal(o.retryAfter, '1', 'a rate limit carries the provider’s Retry-After');
    assert.ok(
      outcomes.some(
        (o) => o.ok && /outcome=(rate_limited|server|connection);status=\d+, developer;/.test(o.attempts),
      ),
      'some answers came from a same-provider retry',
    );
  });
});
