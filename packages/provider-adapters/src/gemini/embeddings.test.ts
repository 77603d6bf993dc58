import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { UpstreamHttpRequest } from '../adapter.ts';
import { runEmbeddingsConformance, tokensOf, vectorOf } from '../conformance/embeddings.ts';
import { geminiAdapter } from './index.ts';

type Body = {
  requests: { model: string; content: { parts: { text: string }[] }; outputDimensionality?: number }[];
};

const textsOf = (request: UpstreamHttpRequest) =>
  (JSON.parse(request.body) as Body).requests.map((item) => item.content.parts[0]?.text ?? '');

/** batchEmbedContents in miniature. */
function answer(request: UpstreamHttpRequest) {
  const texts = textsOf(request);
  const promptTokenCount = texts.reduce((sum, text) => sum + tokensOf(text), 0);
  return {
    body: JSON.stringify({
      embeddings: texts.map((text) => ({ values: vectorOf(text) })),
      usageMetadata: { promptTokenCount },
    }),
    headers: {},
  };
}

/** ai.google.dev/api/embeddings#method:-models.batchembedcontents: `embeddings[].values`, no usage. */
const example = {
  reply: {
    body: JSON.stringify({ embeddings: [{ values: [0.013168523, -0.008711934, -0.046782676] }] }),
    headers: {},
  },
  first: [0.013168523, -0.008711934, -0.046782676],
  // "Hello world" counted by the estimate (11 characters / 4).
  tokens: 3,
};

const target = {
  upstreamModel: 'gemini-embedding-001',
  endpoint: { baseUrl: 'https://generativelanguage.googleapis.com/v1beta' },
};

runEmbeddingsConformance(geminiAdapter, { target, answer, textsOf, takesTokenIds: false, example });

test('Gemini: batchEmbedContents with the model named in each request and the output dimensionality', () => {
  const translator = geminiAdapter.embeddings;
  assert.ok(translator);
  const [call] = translator.buildRequests({ inputs: ['hi'], encoding: 'float', dimensions: 768 }, target);
  assert.deepEqual(call, {
    method: 'POST',
    url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-embedding-001:batchEmbedContents',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      requests: [
        {
          model: 'models/gemini-embedding-001',
          content: { parts: [{ text: 'hi' }] },
          outputDimensionality: 768,
        },
      ],
    }),
  });
});

test('Gemini: an answer without usageMetadata is estimated and says so', () => {
  const translator = geminiAdapter.embeddings;
  assert.ok(translator);
  const result = translator.parseResponses([example.reply], { inputs: ['Hello world'], encoding: 'float' });
  assert.deepEqual(result.usage, { meters: { input: 3 }, inputTokens: 3, estimated: true });
});
