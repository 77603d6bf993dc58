/**
 * What every model call gets, on /v1/embeddings: a batch split into the upstream's calls and
 * joined in order, budgets (402 without one; the estimate reserved, the input settled), tokens
 * per minute counting input tokens, stickiness, failover to another provider, X-Gateway-Applied
 * and the request log line.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { setAllocation, setRateLimits } from '../../access/admin.ts';
import {
  type ChatTestApp,
  scriptedDeveloper,
  startChatApp,
  type UpstreamScript,
} from '../chat-completions/testing.ts';

interface Answer {
  data: { index: number; embedding: number[] }[];
  usage: { prompt_tokens: number; cost: number };
}

const embed = (gw: ChatTestApp, payload: Record<string, unknown>) =>
  gw.app.inject({ method: 'POST', url: '/v1/embeddings', headers: gw.headers(), payload });

describe('one app', () => {
  let t: ChatTestApp;
  const logs: Record<string, unknown>[] = [];
  before(async () => {
    const stream = new PassThrough();
    stream.on('data', (line: Buffer) => {
      for (const text of line.toString().split('\n')) if (text.trim()) logs.push(JSON.parse(text));
    });
    t = await startChatApp({ logStream: stream });
  });
  after(() => t.close());

  /** The upstream requests `ask` made, by path. */
  async function upstreamPaths(ask: () => Promise<unknown>): Promise<string[]> {
    const before = t.sim.received.length;
    await ask();
    return t.sim.received.slice(before).map((request) => request.path);
  }

  for (const [model, inputs, calls] of [
    ['gemini-embedding-001@developer', 250, 3],
    ['gemini-embedding-001@cloud_b', 5, 5],
    ['titan-embed-text-v2@cloud_a', 6, 6],
    ['cohere-embed-english-v3@cloud_a', 100, 2],
  ] as const) {
    test(`${model}: ${inputs} inputs are ${calls} upstream calls, joined in input order`, async () => {
      const input = Array.from({ length: inputs }, (_, i) => `text number ${i}`);
      let answer: Answer | undefined;
      const paths = await upstreamPaths(async () => {
        const response = await embed(t, { model, input });
        assert.equal(response.statusCode, 200, response.body);
        answer = response.json<Answer>();
      });
      assert.equal(paths.length, calls, paths.join('\n'));
      assert.ok(answer);
      assert.equal(answer.data.length, inputs);
      assert.deepEqual(
        answer.data.map((item) => item.index),
        input.map((_, i) => i),
      );
      // Each vector is its own text's: the last one, asked alone, is the same.
      const last = (await embed(t, { model, input: input.at(-1) })).json<Answer>();
      assert.deepEqual(last.data[0]?.embedding, answer.data.at(-1)?.embedding);
    });
  }

  test('X-Gateway-Applied, X-Gateway-Cost and the request log line', async () => {
    const response = await embed(t, { model: 'titan-embed-text', input: 'hello there', dimensions: 256 });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(
      response.headers['x-gateway-applied'],
      'model="titan-embed-text-v2", provider=cloud_a, effort=none, tier=standard, compression=off',
    );
    const answer = response.json<Answer>();
    assert.equal(answer.data[0]?.embedding.length, 256);
    assert.equal(Number(response.headers['x-gateway-cost']), answer.usage.cost);
    await t.settledUsage(1);
    await sleep(20);
    const line = logs.find(
      (entry) => entry.reqId === response.headers['x-request-id'] && 'costMicros' in entry,
    );
    assert.ok(line, JSON.stringify(logs.slice(-3)));
    assert.equal(line.model, 'titan-embed-text');
    assert.equal(line.servedModel, 'titan-embed-text-v2');
    assert.equal(line.provider, 'cloud_a');
    assert.equal(line.inputTokens, answer.usage.prompt_tokens);
    assert.equal(line.outputTokens, 0);
    assert.equal(line.costMicros, answer.usage.cost * 1e6);
  });
});

test('without budget on any provider of the model: 402, nothing sent', async (t) => {
  const gw = await startChatApp({ allocations: { cloud_b: 1 } });
  t.after(() => gw.close());
  const sent = gw.sim.received.length;
  const response = await embed(gw, { model: 'text-embedding-3-small', input: 'a' });
  assert.equal(response.statusCode, 402, response.body);
  assert.equal(response.json().error.code, 'gateway_allocation_exhausted');
  assert.equal(gw.sim.received.length, sent);
  assert.equal((await embed(gw, { model: 'gemini-embedding-001', input: 'a' })).statusCode, 200);
});

test('tokens per minute count the input tokens: the estimate, then what was used', async (t) => {
  const gw = await startChatApp();
  t.after(() => gw.close());
  await setRateLimits(gw.database.db, { slug: 'apollo', scope: 'token', change: { tokensPerMinute: 1_000 } });
  await sleep(1_050); // limits are cached with the token's state for up to 1 s
  const input = 'x'.repeat(400); // estimated at 100 tokens
  const first = await embed(gw, { model: 'text-embedding-3-small@developer', input });
  assert.equal(first.statusCode, 200, first.body);
  assert.equal(first.headers['x-ratelimit-remaining-tokens'], '900', 'the estimate is held while it runs');
  const used = first.json<Answer>().usage.prompt_tokens;
  await gw.settledUsage(1);
  const second = await embed(gw, { model: 'text-embedding-3-small@developer', input });
  assert.equal(Number(second.headers['x-ratelimit-remaining-tokens']), 1_000 - used - 100);
  const tooBig = await embed(gw, { model: 'text-embedding-3-small@developer', input: 'x'.repeat(8_000) });
  assert.equal(tooBig.statusCode, 429, tooBig.body);
  assert.equal(tooBig.json().error.code, 'rate_limit_exceeded');
});

test('a failing provider: the call fails over to another provider of the model', async (t) => {
  const { app: gw, hits } = await scriptedDeveloper(
    t,
    (response) => {
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } }));
    },
    { developer: 10, cloud_c: 1 },
  );
  const response = await embed(gw, { model: 'text-embedding-3-small', input: ['a', 'b'] });
  assert.equal(response.statusCode, 200, response.body);
  assert.ok(hits() >= 1, 'developer was tried first');
  assert.match(String(response.headers['x-gateway-applied']), /provider=cloud_c/);
  const rows = await gw.settledUsage(2);
  assert.deepEqual(
    rows.map((row) => [row.provider, row.status, row.cost_micros > 0]),
    [
      ['developer', 'error', false],
      ['cloud_c', 'ok', true],
    ],
  );
});

test('stickiness: the provider chosen first keeps serving the user the model family', async (t) => {
  const gw = await startChatApp({ allocations: { developer: 5, cloud_c: 3 } });
  t.after(() => gw.close());
  const provider = async () => {
    const response = await embed(gw, { model: 'text-embedding-3-small', input: 'a' });
    assert.equal(response.statusCode, 200, response.body);
    return /provider=(\w+)/.exec(String(response.headers['x-gateway-applied']))?.[1];
  };
  assert.equal(await provider(), 'developer', 'the most budget left');
  await setAllocation(gw.database.db, { slug: 'apollo', provider: 'cloud_c', usd: 50 });
  // cloud_c now has the most budget: a fresh choice would be cloud_c.
  assert.equal(await provider(), 'developer', 'the first choice is kept');
  assert.equal(await provider(), 'developer');
  const fresh = await gw.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: gw.headers(),
    payload: { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }] },
  });
  assert.match(String(fresh.headers['x-gateway-applied']), /provider=cloud_c/, 'another family: fresh');
});

describe('a split batch whose third call fails after two answered', () => {
  const TOKENS_A_CALL = 30_000;
  /**
   * Nineteen texts of 30 kB (under the model's 8,192 tokens each): OpenAI takes 300,000 tokens a
   * request by the gateway's bound of one per byte, so they are three calls (9, 9 and 1 texts).
   */
  const input = Array.from({ length: 19 }, (_, i) => `${i} ${'x'.repeat(30_000)}`);
  let failAt = 0;
  const script: UpstreamScript = (response, hit) => {
    if (hit === failAt) {
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } }));
      return;
    }
    const data = [0, 1].map((index) => ({ object: 'embedding', index, embedding: [0.5, 0.25] }));
    const usage = { prompt_tokens: TOKENS_A_CALL, total_tokens: TOKENS_A_CALL };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ object: 'list', data, model: 'text-embedding-3-small', usage }));
  };

  /** The ledger row of a developer call that answered `tokens`, one call alone: the oracle of the charge. */
  async function answeredAlone(gw: ChatTestApp, rows: number) {
    const reference = await embed(gw, { model: 'text-embedding-3-small@developer', input: ['a', 'b'] });
    assert.equal(reference.statusCode, 200, reference.body);
    return (await gw.settledUsage(rows)).at(-1);
  }

  test('the failed attempt is charged the answered calls, and the request fails over', async (t) => {
    const { app: gw, hits } = await scriptedDeveloper(t, script, { developer: 10, cloud_c: 1 });
    failAt = 3;
    const response = await embed(gw, { model: 'text-embedding-3-small', input });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(hits(), 3, 'three calls sent to developer');
    assert.match(String(response.headers['x-gateway-applied']), /provider=cloud_c/);
    assert.equal(response.json<Answer>().data.length, input.length);
    const [failed, served] = await gw.settledUsage(2);
    assert.deepEqual(
      [failed?.provider, failed?.status, served?.provider, served?.status],
      ['developer', 'error', 'cloud_c', 'ok'],
    );
    assert.equal(failed?.prompt_tokens, 2 * TOKENS_A_CALL);
    assert.deepEqual(JSON.parse(String(failed?.meters)), { input: 2 * TOKENS_A_CALL });
    assert.ok(served && served.cost_micros > 0);
    failAt = 0;
    const alone = await answeredAlone(gw, 3);
    assert.equal(alone?.prompt_tokens, TOKENS_A_CALL);
    // The price is linear: two calls' tokens cost what two single calls of them cost (rounded up).
    assert.ok(failed && alone);
    assert.ok(failed.cost_micros > alone.cost_micros, `${failed.cost_micros} > ${alone.cost_micros}`);
    assert.ok(failed.cost_micros <= 2 * alone.cost_micros);
  });

  test('without another provider the client gets the upstream error, and the answered calls are charged', async (t) => {
    const { app: gw } = await scriptedDeveloper(t, script, { developer: 10 });
    failAt = 1;
    const single = await embed(gw, { model: 'text-embedding-3-small', input: 'a' });
    failAt = 4; // the batch's third call (hits 2, 3 and 4)
    const split = await embed(gw, { model: 'text-embedding-3-small', input });
    assert.equal(single.statusCode, 503, single.body);
    assert.deepEqual([split.statusCode, split.json()], [single.statusCode, single.json()]);
    const [released, charged] = await gw.settledUsage(2);
    assert.deepEqual([released?.status, released?.cost_micros], ['error', 0], 'nothing answered: released');
    assert.equal(charged?.status, 'error');
    assert.equal(charged?.prompt_tokens, 2 * TOKENS_A_CALL);
    assert.ok(charged && charged.cost_micros > 0);
  });
});
