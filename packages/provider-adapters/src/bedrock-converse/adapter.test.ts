import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AdapterRequestError, type BuildInput } from '../adapter.ts';
import { canonicalBuildInput } from '../conformance/canonical.ts';
import type { JsonObject } from '../json.ts';
import type { EffortExpression, OfferProfile } from '../model/profile.ts';
import type { ModelRequest } from '../model/request.ts';
import { bedrockConverseAdapter as adapter } from './index.ts';

const SONNET_45: OfferProfile = {
  upstreamModel: 'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
  efforts: { none: { kind: 'omit' }, high: { kind: 'anthropic-budget', budgetTokens: 4096 } },
  tiers: ['standard'],
  defaultMaxOutputTokens: 8192,
  maxOutputTokens: 64000,
};
const SONNET_46: OfferProfile = { ...SONNET_45, upstreamModel: 'us.anthropic.claude-sonnet-4-6' };
const OPUS_47: OfferProfile = {
  ...SONNET_45,
  upstreamModel: 'global.anthropic.claude-opus-4-7',
  maxOutputTokens: 128000,
};

function input(overrides: Partial<BuildInput> = {}, request: Partial<ModelRequest> = {}): BuildInput {
  const base = canonicalBuildInput(false);
  return { ...base, offer: SONNET_45, ...overrides, request: { ...base.request, ...request } };
}

function body(built: BuildInput): JsonObject {
  return JSON.parse(adapter.buildRequest(built).body) as JsonObject;
}

function fields(
  reasoning: EffortExpression,
  offer: OfferProfile = SONNET_45,
  request: Partial<ModelRequest> = {},
) {
  const json = body(input({ reasoning, offer }, request));
  assert.doesNotMatch(JSON.stringify(json), /reasoning_effort/);
  return { extra: json.additionalModelRequestFields, inference: json.inferenceConfig as JsonObject, json };
}

describe('bedrock-converse request: what Bedrock accepts for Claude', () => {
  test('effort kinds become exactly Anthropic keys, never reasoning_effort', () => {
    assert.deepEqual(fields({ kind: 'anthropic-budget', budgetTokens: 1024 }).extra, {
      thinking: { type: 'enabled', budget_tokens: 1024 },
    });
    assert.deepEqual(fields({ kind: 'anthropic-budget', budgetTokens: 1536, effort: 'medium' }).extra, {
      thinking: { type: 'enabled', budget_tokens: 1536 },
      output_config: { effort: 'medium' },
    });
    assert.deepEqual(fields({ kind: 'anthropic-adaptive', effort: 'max' }, SONNET_46).extra, {
      thinking: { type: 'adaptive' },
      output_config: { effort: 'max' },
    });
    assert.deepEqual(fields({ kind: 'anthropic-adaptive' }, OPUS_47).extra, {
      thinking: { type: 'adaptive' },
    });
    assert.equal('additionalModelRequestFields' in fields({ kind: 'omit' }).json, false);
  });

  test('budget: at least 1024, below maxTokens (never raised: it is what was reserved), else dropped', () => {
    const shrunk = fields({ kind: 'anthropic-budget', budgetTokens: 4096 }, SONNET_45, {
      maxOutputTokens: 2048,
    });
    assert.equal(shrunk.inference.maxTokens, 2048);
    assert.deepEqual(shrunk.extra, { thinking: { type: 'enabled', budget_tokens: 2047 } });
    const floor = fields({ kind: 'anthropic-budget', budgetTokens: 512 }, SONNET_45, {
      maxOutputTokens: 2048,
    });
    assert.deepEqual(floor.extra, { thinking: { type: 'enabled', budget_tokens: 1024 } });
    assert.equal(floor.inference.maxTokens, 2048);
    const dropped = fields({ kind: 'anthropic-budget', budgetTokens: 4096 }, SONNET_45, {
      temperature: 0.3,
      maxOutputTokens: 1024,
    });
    assert.equal(dropped.extra, undefined);
    assert.deepEqual(dropped.inference, { maxTokens: 1024, temperature: 0.3 });
  });

  test('thinking on: no temperature/topP, a forced tool choice becomes auto', () => {
    const request = { temperature: 0.3, topP: 0.9, toolChoice: { type: 'required' } as const, stop: ['END'] };
    const on = fields({ kind: 'anthropic-adaptive', effort: 'high' }, SONNET_46, request);
    assert.deepEqual(on.inference, { maxTokens: 2048, stopSequences: ['END'] });
    assert.deepEqual((on.json.toolConfig as JsonObject).toolChoice, { auto: {} });
    const off = fields({ kind: 'omit' }, SONNET_46, request);
    assert.deepEqual(off.inference, { maxTokens: 2048, temperature: 0.3, topP: 0.9, stopSequences: ['END'] });
    assert.deepEqual((off.json.toolConfig as JsonObject).toolChoice, { any: {} });
  });

  test('maxTokens: the client limit or the default, capped at the model ceiling', () => {
    assert.equal(
      fields({ kind: 'omit' }, SONNET_45, { maxOutputTokens: undefined }).inference.maxTokens,
      8192,
    );
    assert.equal(fields({ kind: 'omit' }, SONNET_45, { maxOutputTokens: 900000 }).inference.maxTokens, 64000);
  });

  test('another provider’s effort kind is refused, not sent', () => {
    assert.throws(
      () => adapter.buildRequest(input({ reasoning: { kind: 'openai', value: 'high' } })),
      AdapterRequestError,
    );
  });

  test('URL: the model id is one encoded segment; streams ask for the event stream', () => {
    const plain = adapter.buildRequest(input());
    assert.equal(
      plain.url,
      'http://127.0.0.1:9/base/model/global.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse',
    );
    assert.deepEqual(plain.headers, { 'content-type': 'application/json', accept: 'application/json' });
    const arn = 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/x';
    const streamed = adapter.buildRequest(
      input({ offer: { ...SONNET_45, upstreamModel: arn } }, { stream: true }),
    );
    assert.ok(
      streamed.url.endsWith(
        '/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fx/converse-stream',
      ),
    );
    assert.equal(streamed.headers.accept, 'application/vnd.amazon.eventstream');
  });

  test('web search and image URLs are refused', () => {
    assert.throws(
      () => adapter.buildRequest(input({}, { tools: [{ type: 'web_search' }] })),
      (error: unknown) =>
        error instanceof AdapterRequestError && /web search is not available/.test(error.message),
    );
    const turns = [
      {
        role: 'user' as const,
        content: [{ type: 'image' as const, source: { kind: 'url' as const, url: 'https://x/a.png' } }],
      },
    ];
    assert.throws(() => adapter.buildRequest(input({}, { turns })), AdapterRequestError);
  });

  test('canonical conversation: toolUse input is an object, toolResult answers it, system and tools', () => {
    const json = body(input());
    assert.deepEqual(json.system, [{ text: 'You are terse.' }]);
    assert.deepEqual(json.messages, [
      { role: 'user', content: [{ text: 'What is the capital of France?' }] },
      {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 'call_1', name: 'get_weather', input: { city: 'Paris' } } }],
      },
      { role: 'user', content: [{ toolResult: { toolUseId: 'call_1', content: [{ text: 'sunny' }] } }] },
    ]);
    assert.deepEqual(json.toolConfig, {
      tools: [
        {
          toolSpec: {
            name: 'get_weather',
            description: 'Weather of a city',
            inputSchema: {
              json: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
            },
          },
        },
      ],
    });
  });

  test('cache points follow the hinted part; same-role turns merge; errors and thinking keep their shape', () => {
    const cache = { type: 'ephemeral' } as const;
    const request: Partial<ModelRequest> = {
      system: [{ type: 'text', text: 'Rules.', cache }],
      tools: [
        {
          type: 'function',
          name: 'f',
          parameters: { type: 'object' },
          cache: { type: 'ephemeral', ttl: '1h' },
        },
      ],
      turns: [
        { role: 'user', content: [{ type: 'text', text: 'Long document', cache }] },
        { role: 'user', content: [{ type: 'text', text: 'Question' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', text: 'hmm', signature: 'c2ln' },
            { type: 'thinking', text: 'unsigned, from another model' },
            { type: 'redacted_thinking', data: 'b3BhcXVl' },
            { type: 'tool_call', id: 'tooluse_1~sig~abc', name: 'f', arguments: '' },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              callId: 'tooluse_1~sig~abc',
              content: [{ type: 'text', text: 'boom' }],
              isError: true,
            },
          ],
        },
      ],
    };
    const json = body(input({}, request));
    const point = { cachePoint: { type: 'default' } };
    assert.deepEqual(json.system, [{ text: 'Rules.' }, point]);
    assert.deepEqual((json.toolConfig as JsonObject).tools, [
      { toolSpec: { name: 'f', inputSchema: { json: { type: 'object' } } } },
      { cachePoint: { type: 'default', ttl: '1h' } },
    ]);
    assert.deepEqual(json.messages, [
      { role: 'user', content: [{ text: 'Long document' }, point, { text: 'Question' }] },
      {
        role: 'assistant',
        content: [
          { reasoningContent: { reasoningText: { text: 'hmm', signature: 'c2ln' } } },
          { reasoningContent: { redactedContent: 'b3BhcXVl' } },
          { toolUse: { toolUseId: 'tooluse_1', name: 'f', input: {} } },
        ],
      },
      {
        role: 'user',
        content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: 'boom' }], status: 'error' } }],
      },
    ]);
  });

  test('tool choice: none keeps tools only when the conversation holds tool blocks; a named tool; flex tier', () => {
    assert.equal(
      (body(input({}, { toolChoice: { type: 'none' } })).toolConfig as JsonObject).toolChoice,
      undefined,
    );
    const fresh = { turns: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }] };
    assert.equal(body(input({}, { ...fresh, toolChoice: { type: 'none' } })).toolConfig, undefined);
    const named = body(input({}, { toolChoice: { type: 'tool', name: 'get_weather' } }));
    assert.deepEqual((named.toolConfig as JsonObject).toolChoice, { tool: { name: 'get_weather' } });
    assert.deepEqual(body(input({ tier: 'flex' })).serviceTier, { type: 'flex' });
    assert.equal('serviceTier' in body(input()), false);
  });
});

test('a model that takes no sampling changes (fixedSampling): no temperature or topP in inferenceConfig', () => {
  const fixed: OfferProfile = { ...OPUS_47, fixedSampling: true };
  const { inference } = fields({ kind: 'omit' }, fixed, { temperature: 0.3, topP: 0.5 });
  assert.deepEqual(Object.keys(inference), ['maxTokens']);
  assert.equal(fields({ kind: 'omit' }, OPUS_47, { temperature: 0.3 }).inference.temperature, 0.3);
});
