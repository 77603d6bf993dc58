import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AdapterRequestError, type BuildInput } from '../adapter.ts';
import { canonicalBuildInput } from '../conformance/canonical.ts';
import type { JsonObject } from '../json.ts';
import type { EffortExpression, OfferProfile } from '../model/profile.ts';
import type { ModelRequest } from '../model/request.ts';
import { anthropicAdapter as adapter } from './index.ts';

const SONNET_45: OfferProfile = {
  upstreamModel: 'claude-sonnet-4-5-20250929',
  efforts: { none: { kind: 'omit' }, high: { kind: 'anthropic-budget', budgetTokens: 4096 } },
  tiers: ['standard'],
  webSearchTool: 'web_search_20250305',
  defaultMaxOutputTokens: 4096,
  maxOutputTokens: 64000,
};
const SONNET_46: OfferProfile = { ...SONNET_45, upstreamModel: 'claude-sonnet-4-6' };
const OPUS_47: OfferProfile = { ...SONNET_45, upstreamModel: 'claude-opus-4-7', maxOutputTokens: 128000 };

function input(overrides: Partial<BuildInput> = {}, request: Partial<ModelRequest> = {}): BuildInput {
  const base = canonicalBuildInput(false);
  return { ...base, offer: SONNET_45, ...overrides, request: { ...base.request, ...request } };
}

function body(overrides: Partial<BuildInput> = {}, request: Partial<ModelRequest> = {}): JsonObject {
  return JSON.parse(adapter.buildRequest(input(overrides, request)).body) as JsonObject;
}

describe('anthropic request', () => {
  test('POSTs to /v1/messages with anthropic-version and no credentials', () => {
    const built = adapter.buildRequest(input({}, { stream: true }));
    assert.equal(built.url, 'http://127.0.0.1:9/base/v1/messages');
    assert.deepEqual(built.headers, {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'anthropic-version': '2023-06-01',
    });
    assert.equal((JSON.parse(built.body) as JsonObject).stream, true);
    assert.equal(adapter.buildRequest(input()).headers.accept, 'application/json');
  });

  test('max_tokens is always present and within the model ceiling', () => {
    assert.equal(body({}, { maxOutputTokens: undefined }).max_tokens, 4096);
    assert.equal(body({}, { maxOutputTokens: 100 }).max_tokens, 100);
    assert.equal(body({}, { maxOutputTokens: 1_000_000 }).max_tokens, 64000);
  });

  test('system, tools, tool results in user turns, alternation', () => {
    const json = body(
      {},
      {
        system: [{ type: 'text', text: 'Be terse.', cache: { type: 'ephemeral' } }],
        turns: [
          { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
          { role: 'user', content: [{ type: 'text', text: 'In Paris.' }] },
          {
            role: 'assistant',
            content: [
              { type: 'tool_call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
            ],
          },
          { role: 'user', content: [{ type: 'text', text: 'thanks' }] },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                callId: 'toolu_1',
                content: [{ type: 'text', text: 'sunny' }],
                isError: true,
              },
            ],
          },
        ],
        toolChoice: { type: 'tool', name: 'get_weather' },
        parallelToolCalls: false,
        stop: ['END'],
        temperature: 0.2,
        topP: 0.9,
        user: 'user-42',
      },
    );
    assert.deepEqual(json.system, [
      { type: 'text', text: 'Be terse.', cache_control: { type: 'ephemeral' } },
    ]);
    const messages = json.messages as JsonObject[];
    assert.deepEqual(
      messages.map((m) => m.role),
      ['user', 'assistant', 'user'],
    );
    assert.equal((messages[0]?.content as unknown[]).length, 2);
    assert.deepEqual(messages[1]?.content, [
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    assert.deepEqual(messages[2]?.content, [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: [{ type: 'text', text: 'sunny' }],
        is_error: true,
      },
      { type: 'text', text: 'thanks' },
    ]);
    assert.deepEqual(json.tools, [
      {
        name: 'get_weather',
        description: 'Weather of a city',
        input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ]);
    assert.deepEqual(json.tool_choice, {
      type: 'tool',
      name: 'get_weather',
      disable_parallel_tool_use: true,
    });
    assert.deepEqual(json.stop_sequences, ['END']);
    assert.equal(json.temperature, 0.2);
    assert.equal('top_p' in json, false, 'recent models refuse temperature and top_p together');
    assert.deepEqual(json.metadata, { user_id: 'user-42' });
  });

  test('tool_choice required -> any; none stays none', () => {
    assert.deepEqual(body({}, { toolChoice: { type: 'required' } }).tool_choice, { type: 'any' });
    assert.deepEqual(body({}, { toolChoice: { type: 'none' } }).tool_choice, { type: 'none' });
  });

  test('images (base64 and url) and documents', () => {
    const json = body(
      {},
      {
        turns: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
              { type: 'image', source: { kind: 'url', url: 'https://example.org/cat.jpg' } },
              {
                type: 'document',
                source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' },
                name: 'a.pdf',
              },
              {
                type: 'document',
                source: {
                  kind: 'base64',
                  mediaType: 'text/plain',
                  data: Buffer.from('hi').toString('base64'),
                },
              },
            ],
          },
        ],
      },
    );
    assert.deepEqual((json.messages as JsonObject[])[0]?.content, [
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.org/cat.jpg' } },
      {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
        title: 'a.pdf',
      },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'hi' } },
    ]);
  });

  test('thinking blocks with signatures and redacted thinking go back unmodified', () => {
    const json = body(
      {},
      {
        turns: [
          { role: 'user', content: [{ type: 'text', text: 'q' }] },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', text: 'hmm', signature: 'sig-1' },
              { type: 'thinking', text: 'from another provider' },
              { type: 'redacted_thinking', data: 'opaque' },
              { type: 'tool_call', id: 'toolu_2', name: 'get_weather', arguments: '' },
            ],
          },
        ],
      },
    );
    assert.deepEqual((json.messages as JsonObject[])[1]?.content, [
      { type: 'thinking', thinking: 'hmm', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: {} },
    ]);
  });

  test('web search tool shape, and an AdapterRequestError without one', () => {
    const json = body(
      {},
      {
        tools: [
          {
            type: 'web_search',
            maxUses: 3,
            allowedDomains: ['example.org'],
            userLocation: { type: 'approximate', approximate: { city: 'Paris' } },
          },
        ],
      },
    );
    assert.deepEqual(json.tools, [
      {
        type: 'web_search_20250305',
        name: 'web_search',
        max_uses: 3,
        allowed_domains: ['example.org'],
        user_location: { type: 'approximate', city: 'Paris' },
      },
    ]);
    const { webSearchTool: _none, ...noSearch } = SONNET_45;
    assert.throws(() => body({ offer: noSearch }, { tools: [{ type: 'web_search' }] }), AdapterRequestError);
  });

  test('flex is refused', () => {
    assert.throws(() => body({ tier: 'flex' }), AdapterRequestError);
  });
});

describe('anthropic effort', () => {
  const think = (offer: OfferProfile, reasoning: EffortExpression, request: Partial<ModelRequest> = {}) =>
    body({ offer, reasoning }, { temperature: 0.3, toolChoice: { type: 'required' }, ...request });

  test('omit sends neither thinking nor output_config', () => {
    const json = think(SONNET_45, { kind: 'omit' });
    assert.equal('thinking' in json, false);
    assert.equal('output_config' in json, false);
    assert.equal(json.temperature, 0.3);
  });

  test('4.5-style budget: enabled + budget inside the client limit, which is never raised; no effort', () => {
    const json = think(
      SONNET_45,
      { kind: 'anthropic-budget', budgetTokens: 4096 },
      { maxOutputTokens: 2048 },
    );
    assert.deepEqual(json.thinking, { type: 'enabled', budget_tokens: 2047 }, 'shrunk to fit the limit');
    assert.equal(json.max_tokens, 2048, 'the limit the gateway reserved for');
    assert.equal('output_config' in json, false);
    assert.equal('temperature' in json, false, 'thinking refuses temperature changes');
    assert.deepEqual(json.tool_choice, { type: 'auto' }, 'thinking refuses a forced tool choice');
  });

  test('budget: floor 1024, kept below the ceiling, dropped when impossible; effort when given', () => {
    const small = think(
      SONNET_45,
      { kind: 'anthropic-budget', budgetTokens: 512, effort: 'low' },
      { maxOutputTokens: 8000 },
    );
    assert.deepEqual(small.thinking, { type: 'enabled', budget_tokens: 1024 });
    assert.equal(small.max_tokens, 8000);
    assert.deepEqual(small.output_config, { effort: 'low' });
    const capped = think(
      { ...SONNET_45, maxOutputTokens: 5000 },
      { kind: 'anthropic-budget', budgetTokens: 4096 },
    );
    assert.equal(capped.max_tokens, 2048, "the canonical request's own limit, not raised");
    assert.deepEqual(capped.thinking, { type: 'enabled', budget_tokens: 2047 });
    const impossible = think(
      SONNET_45,
      { kind: 'anthropic-budget', budgetTokens: 4096 },
      { maxOutputTokens: 1024 },
    );
    assert.equal('thinking' in impossible, false, 'no budget of 1024 fits below a limit of 1024');
    assert.equal(impossible.max_tokens, 1024);
    assert.equal(impossible.temperature, 0.3);
  });

  test('4.6-style adaptive with effort; 4.7-style adaptive-only with xhigh; adaptive default', () => {
    const sonnet = think(SONNET_46, { kind: 'anthropic-adaptive', effort: 'medium' });
    assert.deepEqual([sonnet.thinking, sonnet.output_config], [{ type: 'adaptive' }, { effort: 'medium' }]);
    const opus = think(OPUS_47, { kind: 'anthropic-adaptive', effort: 'xhigh' });
    assert.deepEqual([opus.thinking, opus.output_config], [{ type: 'adaptive' }, { effort: 'xhigh' }]);
    assert.equal('temperature' in opus, false);
    const plain = think(OPUS_47, { kind: 'anthropic-adaptive' });
    assert.deepEqual(plain.thinking, { type: 'adaptive' });
    assert.equal('output_config' in plain, false);
  });

  test('json_schema output format sits beside the effort', () => {
    const json = think(
      OPUS_47,
      { kind: 'anthropic-adaptive', effort: 'low' },
      {
        responseFormat: { type: 'json_schema', name: 'x', schema: { type: 'object' } },
      },
    );
    assert.deepEqual(json.output_config, {
      format: { type: 'json_schema', schema: { type: 'object' } },
      effort: 'low',
    });
  });
});

describe('anthropic same-API passthrough', () => {
  const client: JsonObject = {
    model: 'claude-sonnet-4-6:high',
    messages: [
      {
        role: 'user',
        content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 't', signature: 's' },
          { type: 'text', text: 'yo' },
        ],
      },
      { role: 'user', content: 'again' },
    ],
    thinking: { type: 'enabled', budget_tokens: 2000 },
    output_config: { effort: 'low', format: { type: 'json_schema', schema: {} } },
    context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
    betas: ['context-management-2025-06-27'],
    x_simulator: { fail_status: 529 },
  };
  const through = (reasoning: EffortExpression, stream = false) => {
    const built = adapter.buildRequest(
      input(
        {
          offer: SONNET_46,
          reasoning,
          // The stream flag is read from the body as sent, like every other passthrough field.
          source: { api: 'anthropic-messages', body: stream ? { ...client, stream: true } : client },
        },
        { stream, maxOutputTokens: undefined },
      ),
    );
    return { ...built, json: JSON.parse(built.body) as JsonObject };
  };

  test('keeps unknown fields, thinking blocks and cache_control; sets model, max_tokens, stream', () => {
    const { json, headers } = through({ kind: 'omit' }, true);
    assert.equal(json.model, 'claude-sonnet-4-6');
    assert.equal(json.max_tokens, 4096);
    assert.equal(json.stream, true);
    assert.deepEqual(json.messages, client.messages);
    assert.deepEqual(json.context_management, client.context_management);
    assert.deepEqual(json.x_simulator, client.x_simulator);
    assert.deepEqual(json.thinking, client.thinking, 'omit keeps the client’s own thinking');
    assert.deepEqual(json.output_config, client.output_config);
    assert.equal('betas' in json, false);
    assert.equal(headers['anthropic-beta'], 'context-management-2025-06-27');
  });

  test("the gateway's effort replaces the client's, keeping the output format", () => {
    const { json } = through({ kind: 'anthropic-adaptive', effort: 'high' });
    assert.deepEqual(json.thinking, { type: 'adaptive' });
    assert.deepEqual(json.output_config, { format: { type: 'json_schema', schema: {} }, effort: 'high' });
    assert.equal('stream' in json, false);
  });
});

describe('a model that takes no sampling changes (fixedSampling)', () => {
  const fixed: OfferProfile = { ...OPUS_47, fixedSampling: true };
  test('translated: temperature and top_p are left out; 1.0, the one it accepts, stays', () => {
    const changed = body({ offer: fixed }, { temperature: 0.3 });
    assert.equal('temperature' in changed, false);
    assert.equal('top_p' in body({ offer: fixed }, { temperature: undefined, topP: 0.5 }), false);
    assert.equal(body({ offer: fixed }, { temperature: 1 }).temperature, 1);
    assert.equal(body({ offer: OPUS_47 }, { temperature: 0.3 }).temperature, 0.3, 'other models keep it');
  });

  test("passthrough: the client's sampling fields go too, the rest of its body stays", () => {
    const client: JsonObject = {
      model: 'claude-opus',
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 0.2,
      top_k: 5,
      top_p: 0.9,
      metadata: { user_id: 'u' },
    };
    const built = adapter.buildRequest(
      input({ offer: fixed, source: { api: 'anthropic-messages', body: client } }),
    );
    const json = JSON.parse(built.body) as JsonObject;
    assert.deepEqual(
      ['temperature', 'top_k', 'top_p'].filter((key) => key in json),
      [],
    );
    assert.deepEqual(json.metadata, { user_id: 'u' });
  });
});
