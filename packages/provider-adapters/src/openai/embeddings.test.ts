import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { UpstreamHttpRequest } from '../adapter.ts';
import { azureOpenAIAdapter } from '../azure-openai/index.ts';
import { runEmbeddingsConformance, tokensOf, vectorOf } from '../conformance/embeddings.ts';
import { encodeFloat32Base64 } from '../embeddings/openai-encoding.ts';
import { openAICompatibleAdapter } from '../openai-compatible/index.ts';
import { openAIAdapter } from './index.ts';

type Body = { model: string; input: (string | number[])[]; encoding_format?: string; dimensions?: number };

/** OpenAI's embeddings endpoint in miniature: base64 when asked, usage counted. */
function answer(request: UpstreamHttpRequest) {
  const body = JSON.parse(request.body) as Body;
  const data = body.input.map((input, index) => {
    const vector = typeof input === 'string' ? vectorOf(input) : [input.length, 0, 0.5];
    const embedding = body.encoding_format === 'base64' ? encodeFloat32Base64(vector) : vector;
    return { object: 'embedding', index, embedding };
  });
  const tokens = body.input.reduce(
    (sum, input) => sum + (typeof input === 'string' ? tokensOf(input) : input.length),
    0,
  );
  return {
    body: JSON.stringify({
      object: 'list',
      data,
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    }),
    headers: {},
  };
}

const textsOf = (request: UpstreamHttpRequest) => (JSON.parse(request.body) as Body).input as string[];

/** platform.openai.com/docs/api-reference/embeddings/create, its example answer (shortened). */
const example = {
  reply: {
    body: JSON.stringify({
      object: 'list',
      data: [{ object: 'embedding', embedding: [0.0023064255, -0.009327292, -0.0028842222], index: 0 }],
      model: 'text-embedding-3-small',
      usage: { prompt_tokens: 8, total_tokens: 8 },
    }),
    headers: {},
  },
  first: [0.0023064255, -0.009327292, -0.0028842222],
  tokens: 8,
};

const fixtures = (baseUrl: string, extra: object = {}) => ({
  target: { upstreamModel: 'text-embedding-3-small', endpoint: { baseUrl, ...extra } },
  answer,
  textsOf,
  takesTokenIds: true,
  example,
});

runEmbeddingsConformance(openAIAdapter, fixtures('https://api.openai.com/v1'));
runEmbeddingsConformance(openAICompatibleAdapter, fixtures('http://127.0.0.1:8000/v1'));
runEmbeddingsConformance(
  azureOpenAIAdapter,
  fixtures('https://contoso.openai.azure.com/openai', { apiVersion: '2024-10-21' }),
);

test('OpenAI: one POST /embeddings per 2048 inputs, base64 asked, dimensions and user passed on', () => {
  const translator = openAIAdapter.embeddings;
  assert.ok(translator);
  const target = {
    upstreamModel: 'text-embedding-3-large',
    endpoint: { baseUrl: 'https://api.openai.com/v1' },
  };
  const [call, ...rest] = translator.buildRequests(
    { inputs: ['a', 'b'], encoding: 'float', dimensions: 256, user: 'u-1' },
    target,
  );
  assert.equal(rest.length, 0);
  assert.deepEqual(call, {
    method: 'POST',
    url: 'https://api.openai.com/v1/embeddings',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'text-embedding-3-large',
      input: ['a', 'b'],
      encoding_format: 'base64',
      dimensions: 256,
      user: 'u-1',
    }),
  });
});

test('Azure: the deployment path with api-version, or the v1 path naming the deployment', () => {
  const translator = azureOpenAIAdapter.embeddings;
  assert.ok(translator);
  const asked = { inputs: ['a'], encoding: 'float' as const };
  const deployments = { 'text-embedding-3-small': 'emb-small' };
  const base = 'https://contoso.openai.azure.com/openai';
  const [classic] = translator.buildRequests(asked, {
    upstreamModel: 'text-embedding-3-small',
    endpoint: { baseUrl: base, apiVersion: '2024-10-21', deployments },
  });
  assert.equal(classic?.url, `${base}/deployments/emb-small/embeddings?api-version=2024-10-21`);
  const [v1] = translator.buildRequests(asked, {
    upstreamModel: 'text-embedding-3-small',
    endpoint: { baseUrl: base, deployments },
  });
  assert.equal(v1?.url, `${base}/v1/embeddings`);
  assert.equal((JSON.parse(v1?.body ?? '{}') as Body).model, 'emb-small');
});

test('answers out of index order are put back in order; a missing usage is estimated', () => {
  const translator = openAIAdapter.embeddings;
  assert.ok(translator);
  const body = JSON.stringify({
    object: 'list',
    data: [
      { object: 'embedding', index: 1, embedding: [2] },
      { object: 'embedding', index: 0, embedding: [1] },
    ],
  });
  const result = translator.parseResponses([{ body, headers: {} }], {
    inputs: ['abcd', 'efgh'],
    encoding: 'float',
  });
  assert.deepEqual(result.vectors, [[1], [2]]);
  assert.deepEqual(result.usage, { meters: { input: 2 }, inputTokens: 2, estimated: true });
});

test('a batch over 300,000 tokens at most (a byte a token) is split before OpenAI refuses it', () => {
  const translator = openAIAdapter.embeddings;
  assert.ok(translator);
  const texts = Array.from({ length: 100 }, (_, index) => `${index}`.padEnd(4000, '.'));
  const target = {
    upstreamModel: 'text-embedding-3-small',
    endpoint: { baseUrl: 'https://api.openai.com/v1' },
  };
  const calls = translator.buildRequests({ inputs: texts, encoding: 'float' }, target);
  const sizes = calls.map((call) => (JSON.parse(call.body) as Body).input.length);
  // 4,002 a text at most: 74 texts fit in 300,000.
  assert.deepEqual(sizes, [74, 26]);
  assert.deepEqual(calls.flatMap(textsOf), texts);
});
