import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdapterRequestError } from '../adapter.ts';
import { canonicalBuildInput } from '../conformance/canonical.ts';
import { vertexClaudeAdapter } from './index.ts';

const counter = vertexClaudeAdapter.countTokens;

test("Vertex's counter: count-tokens:rawPredict, the model and version in the body, nothing it refuses", () => {
  assert.ok(counter);
  const base = canonicalBuildInput(false);
  const built = counter.buildRequest({
    ...base,
    endpoint: {
      baseUrl: 'https://us-east5-aiplatform.googleapis.com/v1',
      region: 'us-east5',
      project: 'p-1',
    },
    offer: { ...base.offer, upstreamModel: 'claude-sonnet-4-5@20250929' },
    source: {
      api: 'anthropic-messages',
      body: {
        model: 'claude-sonnet',
        max_tokens: 10,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      },
    },
  });
  assert.equal(
    built.url,
    'https://us-east5-aiplatform.googleapis.com/v1/projects/p-1/locations/us-east5/publishers/anthropic/models/count-tokens:rawPredict',
  );
  assert.deepEqual(JSON.parse(built.body), {
    model: 'claude-sonnet-4-5@20250929',
    anthropic_version: 'vertex-2023-10-16',
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(counter.parseResponse('{"input_tokens": 12}'), 12);
  assert.throws(
    () => counter.buildRequest({ ...base, source: { api: 'openai-chat', body: {} } }),
    AdapterRequestError,
  );
});
