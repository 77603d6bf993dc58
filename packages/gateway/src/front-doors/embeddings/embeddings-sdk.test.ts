/**
 * The official `openai` SDK's `embeddings.create` against a listening gateway, over every
 * embedding model GET /v1/models lists (aliases included): as the SDK calls it by default
 * (base64 on the wire, decoded by the SDK) and with `encoding_format: "float"`. Vectors come
 * back one per input, in order, at the asked length and unit length; each request's usage and
 * cost are its ledger row's.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { type ChatTestApp, startChatApp } from '../chat-completions/testing.ts';

let t: ChatTestApp;
let openai: OpenAI;
before(async () => {
  t = await startChatApp();
  const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: t.token, maxRetries: 0 });
});
after(() => t.close());

interface Listed {
  id: string;
  kind?: string;
  embedding?: { dimensions: number; min_dimensions?: number; dimension_values?: number[] };
}

const norm = (vector: readonly number[]) => Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));

/** A shorter length the model gives, if it gives one. */
function shorter(spec: NonNullable<Listed['embedding']>): number | undefined {
  if (spec.dimension_values) return spec.dimension_values.find((value) => value < spec.dimensions);
  return spec.min_dimensions === undefined ? undefined : Math.max(spec.min_dimensions, 256);
}

/** The ledger row of the one request `ask` makes. */
async function withRow<T>(ask: () => Promise<T>) {
  const before = (await t.settledUsage(0)).length;
  const answer = await ask();
  const rows = (await t.settledUsage(before + 1)).slice(before);
  assert.equal(rows.length, 1);
  return { answer, row: rows[0] as NonNullable<(typeof rows)[0]> };
}

test('every embedding model /v1/models lists answers the openai SDK, float and base64', async () => {
  const listed: Listed[] = [];
  for await (const model of openai.models.list()) listed.push(model as unknown as Listed);
  const embedding = listed.filter((model) => model.kind === 'embedding');
  assert.ok(embedding.length >= 8, `${embedding.map((model) => model.id).join(', ')}`);
  const input = ['the first text', 'a second one', 'and the third'];
  for (const model of embedding) {
    const spec = model.embedding;
    assert.ok(spec, model.id);
    const floats = await withRow(() =>
      openai.embeddings.create({ model: model.id, input, encoding_format: 'float' }),
    );
    const dimensions = shorter(spec);
    const decoded = await withRow(() =>
      openai.embeddings.create({ model: model.id, input, ...(dimensions ? { dimensions } : {}) }),
    );
    for (const [{ answer, row }, length] of [
      [floats, spec.dimensions],
      [decoded, dimensions ?? spec.dimensions],
    ] as const) {
      assert.deepEqual(
        answer.data.map((item) => item.index),
        [0, 1, 2],
        model.id,
      );
      for (const item of answer.data) {
        assert.ok(Array.isArray(item.embedding), `${model.id}: the SDK decoded base64`);
        assert.equal(item.embedding.length, length, model.id);
        assert.ok(Math.abs(norm(item.embedding) - 1) < 1e-3, `${model.id}: unit length`);
      }
      const usage = answer.usage as typeof answer.usage & { cost?: number };
      assert.ok(usage.prompt_tokens > 0, model.id);
      assert.equal(row.prompt_tokens, usage.prompt_tokens, model.id);
      assert.equal(row.completion_tokens, 0);
      assert.equal(row.status, 'ok');
      assert.ok(row.cost_micros > 0, model.id);
      assert.equal(usage.cost, row.cost_micros / 1e6, model.id);
    }
    // Base64 carries float32: the decoded vectors are the float ones, rounded.
    if (dimensions === undefined)
      decoded.answer.data.forEach((item, i) =>
        item.embedding.forEach((x, j) =>
          assert.ok(Math.abs(x - (floats.answer.data[i]?.embedding[j] ?? NaN)) < 1e-6),
        ),
      );
  }
});
