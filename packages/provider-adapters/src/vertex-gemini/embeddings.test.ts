import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { UpstreamHttpRequest } from '../adapter.ts';
import { runEmbeddingsConformance, tokensOf, vectorOf } from '../conformance/embeddings.ts';
import { vertexGeminiAdapter } from './index.ts';

type Body = { instances: { content: string }[]; parameters: Record<string, unknown> };

const textsOf = (request: UpstreamHttpRequest) =>
  (JSON.parse(request.body) as Body).instances.map((instance) => instance.content);

/** predict in miniature: one prediction per instance, its statistics counting its tokens. */
function answer(request: UpstreamHttpRequest) {
  const predictions = textsOf(request).map((text) => ({
    embeddings: { statistics: { truncated: false, token_count: tokensOf(text) }, values: vectorOf(text) },
  }));
  return { body: JSON.stringify({ predictions, metadata: { billableCharacterCount: 1 } }), headers: {} };
}

/** cloud.google.com/vertex-ai/generative-ai/docs/model-reference/text-embeddings-api, response body. */
const example = {
  reply: {
    body: JSON.stringify({
      predictions: [
        {
          embeddings: {
            statistics: { truncated: false, token_count: 6 },
            values: [0.0058424929156899452, 0.011848051100969315],
          },
        },
      ],
      metadata: { billableCharacterCount: 10 },
    }),
    headers: {},
  },
  first: [0.0058424929156899452, 0.011848051100969315],
  tokens: 6,
};

const endpoint = {
  baseUrl: 'https://us-central1-aiplatform.googleapis.com/v1',
  project: 'p1',
  region: 'us-central1',
};

runEmbeddingsConformance(vertexGeminiAdapter, {
  label: 'gemini-embedding-001, one instance a call',
  target: { upstreamModel: 'gemini-embedding-001', endpoint },
  answer,
  textsOf,
  takesTokenIds: false,
  example,
});
runEmbeddingsConformance(vertexGeminiAdapter, {
  label: 'text-embedding-005, 250 instances a call',
  target: { upstreamModel: 'text-embedding-005', endpoint },
  answer,
  textsOf,
  takesTokenIds: false,
  example,
});

test('Vertex: predict under the project and location, no silent truncation, dimensions as a parameter', () => {
  const translator = vertexGeminiAdapter.embeddings;
  assert.ok(translator);
  const calls = translator.buildRequests(
    { inputs: ['a', 'b'], encoding: 'float', dimensions: 768 },
    { upstreamModel: 'gemini-embedding-001', endpoint },
  );
  assert.equal(calls.length, 2);
  assert.equal(
    calls[0]?.url,
    'https://us-central1-aiplatform.googleapis.com/v1/projects/p1/locations/us-central1/publishers/google/models/gemini-embedding-001:predict',
  );
  assert.deepEqual(JSON.parse(calls[1]?.body ?? ''), {
    instances: [{ content: 'b' }],
    parameters: { autoTruncate: false, outputDimensionality: 768 },
  });
});

test('Vertex text-embedding-005: no call over 20,000 tokens at most (a byte a token)', () => {
  const translator = vertexGeminiAdapter.embeddings;
  assert.ok(translator);
  const texts = Array.from({ length: 10 }, (_, index) => `${index}`.padEnd(4000, '.'));
  const calls = translator.buildRequests(
    { inputs: texts, encoding: 'float' },
    { upstreamModel: 'text-embedding-005', endpoint },
  );
  assert.deepEqual(
    calls.map((call) => textsOf(call).length),
    [4, 4, 2],
  );
  assert.deepEqual(calls.flatMap(textsOf), texts);
});
