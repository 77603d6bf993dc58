/**
 * The Responses passthrough of the OpenAI and Azure adapters: where a Responses client's body
 * goes (OpenAI `/responses`, Azure v1 `/v1/responses`, classic `/responses?api-version=`), that
 * local OpenAI-compatible servers translate it to Chat Completions instead, and how the answer
 * is read.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AdapterParseError, type BuildInput } from '../adapter.ts';
import { azureOpenAIAdapter } from '../azure-openai/index.ts';
import { canonicalBuildInput } from '../conformance/canonical.ts';
import type { JsonObject } from '../json.ts';
import { openAICompatibleAdapter } from '../openai-compatible/index.ts';
import { decodeResponsesRequest } from '../wire/openai-responses/decode-request.ts';
import { openAIAdapter } from './index.ts';

const body: JsonObject = {
  model: 'gpt-5.4@developer',
  input: [{ role: 'user', content: 'hi' }],
  store: false,
  stream: true,
  reasoning: { effort: 'low', summary: 'auto' },
};

function input(endpoint: BuildInput['endpoint']): BuildInput {
  const base = canonicalBuildInput(true);
  return {
    ...base,
    endpoint,
    offer: { ...base.offer, upstreamModel: 'gpt-5.4-2026-03-05' },
    request: decodeResponsesRequest(body),
    source: { api: 'openai-responses', body },
    reasoning: { kind: 'openai', value: 'medium' },
  };
}

describe('Responses clients on OpenAI-API upstreams', () => {
  test('OpenAI: /responses, the body as sent with the gateway’s edits, streamed', () => {
    const out = openAIAdapter.buildRequest(input({ baseUrl: 'https://api.openai.example/v1' }));
    assert.equal(out.url, 'https://api.openai.example/v1/responses');
    assert.equal(out.headers.accept, 'text/event-stream');
    const sent = JSON.parse(out.body) as JsonObject;
    assert.deepEqual(sent, {
      ...body,
      model: 'gpt-5.4-2026-03-05',
      reasoning: { effort: 'medium', summary: 'auto' },
    });
  });

  test('Azure: v1 /v1/responses, classic /responses?api-version=, the deployment as model', () => {
    const v1 = azureOpenAIAdapter.buildRequest(input({ baseUrl: 'https://res.example/openai' }));
    assert.equal(v1.url, 'https://res.example/openai/v1/responses');
    const classic = azureOpenAIAdapter.buildRequest(
      input({ baseUrl: 'https://res.example/openai', apiVersion: '2025-04-01-preview' }),
    );
    assert.equal(classic.url, 'https://res.example/openai/responses?api-version=2025-04-01-preview');
    assert.equal((JSON.parse(classic.body) as JsonObject).model, 'gpt-5.4-2026-03-05');
  });

  test('Azure: a deployment mapped for the upstream model is the model sent', () => {
    const deployments = { 'gpt-5.4-2026-03-05': 'gpt54-prod' };
    const v1 = azureOpenAIAdapter.buildRequest(input({ baseUrl: 'https://res.example/openai', deployments }));
    assert.equal((JSON.parse(v1.body) as JsonObject).model, 'gpt54-prod');
  });

  test('a local OpenAI-compatible server gets Chat Completions translated from the internal model', () => {
    const out = openAICompatibleAdapter.buildRequest(input({ baseUrl: 'http://127.0.0.1:8000/v1' }));
    assert.equal(out.url, 'http://127.0.0.1:8000/v1/chat/completions');
    const sent = JSON.parse(out.body) as { messages: JsonObject[]; reasoning_effort: string };
    assert.deepEqual(sent.messages, [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
    assert.equal(sent.reasoning_effort, 'medium');
  });

  test('a Responses answer is native for the Responses client; not a response object is a parse error', () => {
    const answer = JSON.stringify({
      id: 'resp_1',
      object: 'response',
      status: 'completed',
      output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hi' }] }],
      usage: { input_tokens: 3, output_tokens: 1, total_tokens: 4 },
      service_tier: 'flex',
    });
    const parsed = openAIAdapter.parseResponse(answer, { clientApi: 'openai-responses' });
    assert.equal(parsed.native?.api, 'openai-responses');
    assert.deepEqual(parsed.response.content, [{ type: 'text', text: 'Hi' }]);
    assert.equal(parsed.response.servedTier, 'flex');
    assert.equal(parsed.response.usage?.inputTokens, 3);
    assert.throws(
      () =>
        openAIAdapter.parseResponse('{"object":"chat.completion","choices":[]}', {
          clientApi: 'openai-responses',
        }),
      AdapterParseError,
    );
  });
});
