import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AdapterParseError, AdapterRequestError, type BuildInput } from '../adapter.ts';
import { azureOpenAIAdapter } from '../azure-openai/index.ts';
import { summarise } from '../conformance/collect.ts';
import { canonicalBuildInput } from '../conformance/canonical.ts';
import type { JsonObject } from '../json.ts';
import { decodeChatRequest } from '../wire/openai-chat/decode-request.ts';
import { errorFixtures, fixtureBytes, fixtureText } from './fixtures.ts';
import { openAIAdapter as adapter } from './index.ts';

const clientBody: JsonObject = {
  model: 'gpt-5.4:high@developer',
  messages: [{ role: 'user', content: 'hi' }],
  temperature: 0.3,
  logit_bias: { '50256': -100 },
  vendor_extension: { nested: [1, 2, 3] },
  reasoning_effort: 'low',
  service_tier: 'priority',
};

function input(body: JsonObject, overrides: Partial<BuildInput> = {}): BuildInput {
  const base = canonicalBuildInput(body.stream === true);
  return {
    ...base,
    endpoint: { baseUrl: 'https://api.openai.example/v1' },
    offer: { ...base.offer, upstreamModel: 'gpt-5.4-2026-03-05' },
    request: decodeChatRequest(body as never),
    source: { api: 'openai-chat', body },
    ...overrides,
  };
}

function built(body: JsonObject, overrides: Partial<BuildInput> = {}) {
  const out = adapter.buildRequest(input(body, overrides));
  return { ...out, json: JSON.parse(out.body) as JsonObject };
}

describe('openai request', () => {
  test('a Chat Completions body passes through with only the gateway edits', () => {
    const out = built(clientBody);
    assert.equal(out.url, 'https://api.openai.example/v1/chat/completions');
    assert.equal(out.json.model, 'gpt-5.4-2026-03-05');
    assert.equal(out.json.temperature, 0.3);
    assert.deepEqual(out.json.logit_bias, { '50256': -100 });
    assert.deepEqual(out.json.vendor_extension, { nested: [1, 2, 3] });
    assert.equal('reasoning_effort' in out.json, false, 'omit drops the client value: the gateway decided');
    assert.equal('service_tier' in out.json, false);
  });

  test('effort and flex are the gateway’s; other effort kinds are refused', () => {
    const out = built(clientBody, { reasoning: { kind: 'openai', value: 'high' }, tier: 'flex' });
    assert.equal(out.json.reasoning_effort, 'high');
    assert.equal(out.json.service_tier, 'flex');
    assert.throws(
      () => built(clientBody, { reasoning: { kind: 'anthropic-adaptive', effort: 'high' } }),
      AdapterRequestError,
    );
  });

  test('streams always ask for usage, keeping other stream options; no stream_options otherwise', () => {
    const out = built({ ...clientBody, stream: true, stream_options: { include_obfuscation: false } });
    assert.deepEqual(out.json.stream_options, { include_obfuscation: false, include_usage: true });
    assert.equal(out.headers.accept, 'text/event-stream');
    assert.equal(
      'stream_options' in built({ ...clientBody, stream_options: { include_usage: true } }).json,
      false,
    );
  });

  test('a client of another API is translated from the internal model', () => {
    const out = adapter.buildRequest({
      ...canonicalBuildInput(false),
      endpoint: { baseUrl: 'https://x.example/v1' },
    });
    const body = JSON.parse(out.body) as {
      messages: JsonObject[];
      tools: JsonObject[];
      max_completion_tokens: number;
    };
    assert.deepEqual(
      body.messages.map((message) => message.role),
      ['system', 'user', 'assistant', 'tool'],
    );
    assert.equal(body.messages[3]?.tool_call_id, 'call_1');
    assert.equal(body.max_completion_tokens, 2048);
    assert.equal((body.tools[0]?.function as JsonObject).name, 'get_weather');
  });
});

describe('azure-openai request', () => {
  const base = { reasoning: { kind: 'openai', value: 'low' } } as const;
  test('v1 API: /v1/chat/completions with the deployment as model', () => {
    const out = azureOpenAIAdapter.buildRequest(
      input(clientBody, { ...base, endpoint: { baseUrl: 'https://res.openai.azure.example/openai' } }),
    );
    assert.equal(out.url, 'https://res.openai.azure.example/openai/v1/chat/completions');
    assert.equal((JSON.parse(out.body) as JsonObject).model, 'gpt-5.4-2026-03-05');
  });
  test('classic deployments: the deployment in the path and api-version in the query', () => {
    const out = azureOpenAIAdapter.buildRequest(
      input(clientBody, {
        ...base,
        endpoint: { baseUrl: 'https://res.example/openai', apiVersion: '2024-10-21' },
      }),
    );
    assert.equal(
      out.url,
      'https://res.example/openai/deployments/gpt-5.4-2026-03-05/chat/completions?api-version=2024-10-21',
    );
  });
  test('a deployment mapped for the upstream model is used in the path and as model; others keep the id', () => {
    const deployments = { 'gpt-5.4-2026-03-05': 'gpt54-prod', 'gpt-5.5-2026-04-23': 'other' };
    const classic = azureOpenAIAdapter.buildRequest(
      input(clientBody, {
        ...base,
        endpoint: { baseUrl: 'https://res.example/openai', apiVersion: '2024-10-21', deployments },
      }),
    );
    assert.equal(
      classic.url,
      'https://res.example/openai/deployments/gpt54-prod/chat/completions?api-version=2024-10-21',
    );
    const v1 = azureOpenAIAdapter.buildRequest(
      input(clientBody, { ...base, endpoint: { baseUrl: 'https://res.example/openai', deployments } }),
    );
    assert.equal((JSON.parse(v1.body) as JsonObject).model, 'gpt54-prod');
    const unmapped = azureOpenAIAdapter.buildRequest(
      input(clientBody, {
        ...base,
        endpoint: { baseUrl: 'https://res.example/openai', deployments: { 'gpt-5.5-2026-04-23': 'x' } },
      }),
    );
    assert.equal((JSON.parse(unmapped.body) as JsonObject).model, 'gpt-5.4-2026-03-05');
  });
  test('a content-filter refusal keeps its code', () => {
    const body = JSON.stringify({ error: { code: 'content_filter', message: 'The response was filtered' } });
    const failure = azureOpenAIAdapter.mapError({ status: 400, headers: {}, body });
    assert.deepEqual([failure.kind, failure.status, failure.code], ['client', 400, 'content_filter']);
  });
});

describe('openai responses', () => {
  test('a Chat Completions client gets the body itself; others the internal model only', () => {
    const body = fixtureText('text-completion.fixture.json');
    assert.equal(adapter.parseResponse(body, { clientApi: 'openai-chat' }).native?.api, 'openai-chat');
    assert.equal(adapter.parseResponse(body, { clientApi: 'anthropic-messages' }).native, undefined);
  });
  test('a 2xx body that is not a completion is a parse error', () => {
    assert.throws(() => adapter.parseResponse('<html>', { clientApi: 'openai-chat' }), AdapterParseError);
    assert.throws(
      () => adapter.parseResponse('{"object":"list"}', { clientApi: 'openai-chat' }),
      AdapterParseError,
    );
  });
  test('native stream: every chunk passes as it came, usage is metered, [DONE] ends', () => {
    const translator = adapter.createStreamTranslator({ clientApi: 'openai-chat' });
    const out = summarise([...translator.push(fixtureBytes('text-stream.fixture.sse')), ...translator.end()]);
    assert.ok(out.native > 3);
    assert.equal(out.text, '', 'no decoded text events beside the native chunks');
    assert.equal(out.usage?.inputTokens, 21);
    assert.ok(out.done);
  });
  test('native stream: the model that answered and why it stopped are metered too, once', () => {
    const translator = adapter.createStreamTranslator({ clientApi: 'openai-chat' });
    const chunk = (fields: Record<string, unknown>) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-1', model: 'gpt-test-2026-01-01', ...fields })}\n\n`;
    const wire = [
      chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }] }),
      chunk({ choices: [{ index: 0, delta: { content: '!' }, finish_reason: null }] }),
      chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'length' }] }),
      'data: [DONE]\n\n',
    ].join('');
    const events = translator.push(new TextEncoder().encode(wire));
    assert.deepEqual(
      events.filter((event) => event.type === 'start'),
      [{ type: 'start', id: 'chatcmpl-1', model: 'gpt-test-2026-01-01' }],
    );
    assert.deepEqual(summarise(events).finishReasons, ['length']);
    assert.equal(summarise(events).native, 3);
  });
  test('usage on the last content chunk (vLLM style, CRLF, no final blank line) is still metered', () => {
    const translator = adapter.createStreamTranslator({ clientApi: 'anthropic-messages' });
    const bytes = fixtureBytes('usage-on-last-chunk-stream.fixture.sse');
    const out = summarise([...translator.push(bytes), ...translator.end()]);
    assert.equal(out.text, 'The capital of France is Paris.');
    assert.equal(out.usage?.outputTokens, 8);
    assert.deepEqual(out.finishReasons, ['stop']);
  });
  test('a malformed event ends the stream with one error', () => {
    const translator = adapter.createStreamTranslator({ clientApi: 'openai-chat' });
    const events = translator.push(new TextEncoder().encode('data: {"choices":[\n\ndata: [DONE]\n\n'));
    assert.deepEqual(
      events.map((event) => event.type),
      ['error'],
    );
  });
});

describe('openai error mapping', () => {
  test('scrubs keys and URLs from client-error messages', () => {
    const failure = adapter.mapError(errorFixtures.badRequestWithKey);
    assert.equal(failure.status, 400);
    assert.doesNotMatch(failure.message, /sk-proj|openai\.com|https:/);
  });
  test('404 and HTML 503 pages are provider faults with gateway-written messages (503: overloaded)', () => {
    const notFound = adapter.mapError(errorFixtures.notFound);
    assert.deepEqual([notFound.kind, notFound.status], ['server', 502]);
    assert.doesNotMatch(notFound.message, /internal-preview/);
    const html = adapter.mapError(errorFixtures.overloadedHtml);
    assert.deepEqual([html.kind, html.status], ['server', 503]);
    assert.doesNotMatch(html.message, /amazonaws|<html/);
  });
  test('Retry-After: HTTP-dates pass, garbage is dropped', () => {
    const date = 'Wed, 21 Oct 2026 07:28:00 GMT';
    assert.equal(
      adapter.mapError({ status: 429, headers: { 'retry-after': date }, body: '' }).retryAfter,
      date,
    );
    const garbage = adapter.mapError({ status: 429, headers: { 'retry-after': 'soon\r\nx: y' }, body: '' });
    assert.equal(garbage.retryAfter, undefined);
  });
});
