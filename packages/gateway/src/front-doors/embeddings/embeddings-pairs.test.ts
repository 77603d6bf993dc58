/**
 * POST /v1/embeddings through the real app against the simulator, on every (model, provider)
 * pair of the catalog: each upstream's API answers, vectors come back in input order at the
 * asked length and unit length, and the request's usage and cost are its ledger row's.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { decodeFloat32Base64 } from '@app/provider-adapters';
import { type ChatTestApp, startChatApp } from '../chat-completions/testing.ts';
import { bundledCatalog } from '../../routing/testing.ts';

let t: ChatTestApp;
before(async () => {
  t = await startChatApp();
});
after(() => t.close());

interface Answer {
  object: string;
  data: { object: string; index: number; embedding: number[] | string }[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number; cost: number };
}

const norm = (vector: readonly number[]) => Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));

async function embed(payload: Record<string, unknown>, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'POST', url: '/v1/embeddings', headers: t.headers(headers), payload });
}

const pairs = bundledCatalog()
  .models.filter((model) => model.kind === 'embedding')
  .flatMap((model) => [...model.offers.keys()].map((provider) => ({ model, provider })));

test('the catalog has embedding models on every provider', () => {
  assert.deepEqual([...new Set(pairs.map((pair) => pair.provider))].sort(), [
    'cloud_a',
    'cloud_b',
    'cloud_c',
    'developer',
  ]);
});

for (const { model, provider } of pairs) {
  test(`${model.id}@${provider}: vectors in order, unit length, usage and cost in the ledger`, async () => {
    const before = (await t.settledUsage(0)).length;
    const inputs = ['alpha', 'beta gamma', 'delta epsilon zeta'];
    const response = await embed({ model: `${model.id}@${provider}`, input: inputs });
    assert.equal(response.statusCode, 200, response.body);
    const answer = response.json<Answer>();
    assert.equal(answer.object, 'list');
    assert.equal(answer.model, model.id);
    assert.deepEqual(
      answer.data.map((item) => item.index),
      [0, 1, 2],
    );
    for (const item of answer.data) {
      const vector = item.embedding as number[];
      assert.equal(vector.length, model.embedding?.dimensions);
      assert.ok(Math.abs(norm(vector) - 1) < 1e-3, `norm ${norm(vector)}`);
    }
    // The same text gives the same vector: order is the input's.
    const single = (await embed({ model: `${model.id}@${provider}`, input: 'beta gamma' })).json<Answer>();
    assert.deepEqual(single.data[0]?.embedding, answer.data[1]?.embedding);
    const rows = (await t.settledUsage(before + 2)).slice(before);
    const row = rows[0];
    assert.ok(row);
    assert.equal(row.provider, provider);
    assert.equal(row.model, model.id);
    assert.equal(row.status, 'ok');
    // The activity log's columns: the request, its one attempt, how it ended.
    assert.equal(row.request_id, response.headers['x-request-id']);
    assert.equal(row.attempt, 1);
    assert.equal(row.outcome, 'ok');
    assert.equal(row.effort, 'none');
    assert.equal(row.prompt_tokens, answer.usage.prompt_tokens);
    assert.ok(row.prompt_tokens > 0);
    assert.equal(row.completion_tokens, 0);
    assert.ok(row.cost_micros > 0);
    assert.equal(answer.usage.cost, row.cost_micros / 1e6);
    assert.equal(response.headers['x-gateway-cost'], String(answer.usage.cost));
    assert.match(String(response.headers['x-gateway-applied']), new RegExp(`provider=${provider}`));
  });
}

test('base64 answers are the float vectors as little-endian float32', async () => {
  const asked = { model: 'text-embedding-3-small@developer', input: ['one', 'two'] };
  const floats = (await embed(asked)).json<Answer>();
  const encoded = (await embed({ ...asked, encoding_format: 'base64' })).json<Answer>();
  encoded.data.forEach((item, index) => {
    const decoded = decodeFloat32Base64(item.embedding as string);
    assert.deepEqual(decoded, floats.data[index]?.embedding);
  });
});
