import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI, { AzureOpenAI } from 'openai';
import { type Simulator, startSimulator } from '../server.ts';
import { refusal } from '../testing.ts';

/** The simulated embeddings endpoints, driven by OpenAI's own SDK (openai 6.x). */
let sim: Simulator;
let openai: OpenAI;
before(async () => {
  sim = await startSimulator();
  openai = new OpenAI({ apiKey: sim.credentials.openaiKey, baseURL: `${sim.url}/openai/v1`, maxRetries: 0 });
});
after(() => sim.close());

const norm = (vector: readonly number[]) => Math.hypot(...vector);
const float32 = (vector: readonly number[]) => Array.from(Float32Array.from(vector));
const lastBody = () => sim.received.at(-1)?.body as Record<string, unknown>;

describe('simulated OpenAI embeddings (driven by the openai SDK)', () => {
  test('float: one unit vector per input, in order, the same text the same vector, usage counted', async () => {
    const answer = await openai.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['the cat sat', 'a dog ran', 'the cat sat'],
      encoding_format: 'float',
    });
    assert.deepEqual(
      answer.data.map((item) => [item.object, item.index, item.embedding.length]),
      [
        ['embedding', 0, 1536],
        ['embedding', 1, 1536],
        ['embedding', 2, 1536],
      ],
    );
    const [first, second, third] = answer.data.map((item) => item.embedding);
    assert.deepEqual(first, third);
    assert.notDeepEqual(first, second);
    assert.ok(Math.abs(norm(first ?? []) - 1) < 1e-9);
    // 11 + 9 + 11 characters, four a token.
    assert.deepEqual(answer.usage, { prompt_tokens: 9, total_tokens: 9 });
    assert.equal(answer.model, 'text-embedding-3-small');
  });

  test('base64 asked explicitly: the SDK hands back the strings, which decode to the float answer', async () => {
    const input = 'base64 please';
    const floats = await openai.embeddings.create({
      model: 'text-embedding-3-large',
      input,
      encoding_format: 'float',
    });
    const packed = await openai.embeddings.create({
      model: 'text-embedding-3-large',
      input,
      encoding_format: 'base64',
    });
    const text = packed.data[0]?.embedding as unknown;
    assert.equal(typeof text, 'string');
    const bytes = Buffer.from(text as string, 'base64');
    const decoded = Array.from({ length: bytes.length / 4 }, (_, index) => bytes.readFloatLE(index * 4));
    assert.deepEqual(decoded, float32(floats.data[0]?.embedding ?? []));
    assert.equal(decoded.length, 3072);
  });

  test('no encoding asked: the SDK asks for base64 itself and decodes it to floats', async () => {
    const input = 'sdk default';
    const floats = await openai.embeddings.create({
      model: 'text-embedding-3-small',
      input,
      encoding_format: 'float',
    });
    const byDefault = await openai.embeddings.create({ model: 'text-embedding-3-small', input });
    assert.equal(lastBody().encoding_format, 'base64');
    assert.deepEqual(byDefault.data[0]?.embedding, float32(floats.data[0]?.embedding ?? []));
  });

  test('dimensions shorten the vector, still unit length; token arrays are embedded and counted', async () => {
    const short = await openai.embeddings.create({
      model: 'text-embedding-3-small',
      input: 'shorter',
      dimensions: 256,
      encoding_format: 'float',
    });
    assert.equal(short.data[0]?.embedding.length, 256);
    assert.ok(Math.abs(norm(short.data[0]?.embedding ?? []) - 1) < 1e-9);
    const tokens = await openai.embeddings.create({
      model: 'text-embedding-3-small',
      input: [
        [1, 2, 3],
        [4, 5],
      ],
      encoding_format: 'float',
    });
    assert.equal(tokens.data.length, 2);
    assert.equal(tokens.usage.prompt_tokens, 5);
  });

  test('refuses as OpenAI does: key, model, dimensions, empty or oversized input, unknown fields', async () => {
    const badKey = new OpenAI({ apiKey: 'sk-wrong', baseURL: `${sim.url}/openai/v1`, maxRetries: 0 });
    assert.equal(
      (await refusal(badKey.embeddings.create({ model: 'text-embedding-3-small', input: 'x' }))).status,
      401,
    );
    const unknown = await refusal(openai.embeddings.create({ model: 'text-embedding-4', input: 'x' }));
    assert.equal(unknown.status, 404);
    const ada = await refusal(
      openai.embeddings.create({ model: 'text-embedding-ada-002', input: 'x', dimensions: 64 }),
    );
    assert.deepEqual(ada, { status: 400, message: '400 This model does not support specifying dimensions.' });
    const tooWide = await refusal(
      openai.embeddings.create({ model: 'text-embedding-3-small', input: 'x', dimensions: 2000 }),
    );
    assert.equal(tooWide.status, 400);
    assert.equal(
      (await refusal(openai.embeddings.create({ model: 'text-embedding-3-small', input: '' }))).status,
      400,
    );
    const many = Array.from({ length: 2049 }, (_, index) => `t${index}`);
    const tooMany = await refusal(openai.embeddings.create({ model: 'text-embedding-3-small', input: many }));
    assert.match(tooMany.message, /at most 2048 inputs/);
    const long = await refusal(
      openai.embeddings.create({ model: 'text-embedding-3-small', input: 'x'.repeat(40_000) }),
    );
    assert.match(long.message, /maximum context length is 8192 tokens, however you requested 10000 tokens/);
    const extra = await fetch(`${sim.url}/openai/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sim.credentials.openaiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'text-embedding-3-small', input: 'x', truncate: true }),
    });
    assert.equal(extra.status, 400);
    assert.deepEqual(await extra.json(), {
      error: {
        message: 'Unrecognized request argument supplied: truncate',
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    });
  });

  test('a failure asked for by header comes back in OpenAI’s envelope', async () => {
    const failed = await refusal(
      openai.embeddings.create(
        { model: 'text-embedding-3-small', input: 'x' },
        { headers: { 'x-sim-fail-status': '429', 'x-sim-retry-after': '2' } },
      ),
    );
    assert.equal(failed.status, 429);
  });
});

describe('simulated Azure OpenAI embeddings (driven by AzureOpenAI)', () => {
  const azure = (deployment?: string) =>
    new AzureOpenAI({
      apiKey: sim.credentials.azureKey,
      endpoint: `${sim.url}/azure`,
      apiVersion: '2024-10-21',
      maxRetries: 0,
      ...(deployment === undefined ? {} : { deployment }),
    });

  test('the deployment path with api-version answers with the deployment’s model', async () => {
    const answer = await azure('text-embedding-3-small').embeddings.create({
      model: 'ignored-by-azure',
      input: ['one', 'two'],
      encoding_format: 'float',
    });
    assert.match(
      sim.received.at(-1)?.path ?? '',
      /^\/azure\/openai\/deployments\/text-embedding-3-small\/embeddings\?api-version=2024-10-21$/,
    );
    assert.equal(answer.data.length, 2);
    assert.equal(answer.model, 'text-embedding-3-small');
  });

  test('api-key and Authorization together are refused, as for chat', async () => {
    const response = await fetch(`${sim.url}/azure/openai/v1/embeddings`, {
      method: 'POST',
      headers: {
        'api-key': sim.credentials.azureKey,
        authorization: 'Bearer x',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ model: 'text-embedding-3-small', input: 'x' }),
    });
    assert.equal(response.status, 400);
  });

  test('a deployment that does not exist is Azure’s 404', async () => {
    const failed = await refusal(azure('nope').embeddings.create({ model: 'x', input: 'one' }));
    assert.equal(failed.status, 404);
  });
});
