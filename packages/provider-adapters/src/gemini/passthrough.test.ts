import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { AdapterRequestError, type BuildInput, type ProviderAdapter } from '../adapter.ts';
import { canonicalBuildInput } from '../conformance/canonical.ts';
import { collectStream } from '../conformance/collect.ts';
import type { JsonObject } from '../json.ts';
import type { EffortExpression } from '../model/profile.ts';
import type { ModelRequest } from '../model/request.ts';
import { ADAPTERS, tokenCounterFor } from '../registry.ts';
import { vertexGeminiAdapter } from '../vertex-gemini/index.ts';
import { fixtureBytes, fixtureText } from './fixtures.ts';
import { geminiAdapter } from './index.ts';

const CLI_BODY = JSON.parse(
  readFileSync(
    join(import.meta.dirname, '../wire/gemini/fixtures/gemini-cli-tool-followup.fixture.json'),
    'utf8',
  ),
) as JsonObject;
/** What a client may add that the gateway decides itself: the model (the URL's) and the tier. */
const SENT: JsonObject = { ...CLI_BODY, model: 'models/whatever', serviceTier: 'priority' };

const base = canonicalBuildInput(false);

function input(rest: Partial<BuildInput> & { stream?: boolean } = {}): BuildInput {
  const { stream, ...others } = rest;
  return {
    ...base,
    get request(): ModelRequest {
      throw new Error('a passthrough must not decode the client body');
    },
    source: { api: 'gemini-generate', body: SENT, ...(stream === undefined ? {} : { stream }) },
    offer: { ...base.offer, upstreamModel: 'gemini-3.5-flash', tiers: ['standard', 'flex'] },
    endpoint: { baseUrl: 'https://upstream.example/v1beta', project: 'proj', region: 'global' },
    ...others,
  };
}

function sent(adapter: ProviderAdapter, rest: Partial<BuildInput> & { stream?: boolean } = {}): JsonObject {
  return JSON.parse(adapter.buildRequest(input(rest)).body) as JsonObject;
}

const { model: _model, serviceTier: _tier, ...AS_SENT } = SENT;

for (const adapter of [geminiAdapter, vertexGeminiAdapter]) {
  describe(`${adapter.id}: a Gemini client's body forwarded`, () => {
    test('speaks the Gemini client API; the body goes as sent but for the model and tier', () => {
      assert.equal(adapter.wireApi, 'gemini-generate');
      assert.deepEqual(sent(adapter, { stream: true }), AS_SENT);
    });

    test('the stream is the client’s URL method, not the body', () => {
      assert.match(
        adapter.buildRequest(input({ stream: true })).url,
        /gemini-3\.5-flash:streamGenerateContent\?alt=sse$/,
      );
      assert.match(adapter.buildRequest(input()).url, /gemini-3\.5-flash:generateContent$/);
    });

    test('the gateway’s effort replaces the client’s budget or level; includeThoughts stays', () => {
      const thinking = (reasoning: EffortExpression) => {
        const body = sent(adapter, { reasoning });
        const { generationConfig, ...rest } = body;
        const { generationConfig: original, ...asSent } = AS_SENT;
        const { thinkingConfig, ...config } = generationConfig as JsonObject;
        const { thinkingConfig: _t, ...originalConfig } = original as JsonObject;
        assert.deepEqual(rest, asSent, 'nothing else changes');
        assert.deepEqual(config, originalConfig, 'nothing else in generationConfig changes');
        return thinkingConfig;
      };
      assert.deepEqual(thinking({ kind: 'gemini-level', level: 'HIGH' }), {
        includeThoughts: true,
        thinkingLevel: 'HIGH',
      });
      assert.deepEqual(thinking({ kind: 'gemini-budget', budgetTokens: 0 }), {
        includeThoughts: true,
        thinkingBudget: 0,
      });
      const leveled = { ...SENT, generationConfig: { thinkingConfig: { thinkingLevel: 'LOW' } } };
      const body = JSON.parse(
        adapter.buildRequest(
          input({
            source: { api: 'gemini-generate', body: leveled },
            reasoning: { kind: 'gemini-budget', budgetTokens: 1024 },
          }),
        ).body,
      ) as JsonObject;
      assert.deepEqual(body.generationConfig, { thinkingConfig: { thinkingBudget: 1024 } });
      assert.throws(
        () => sent(adapter, { reasoning: { kind: 'openai', value: 'low' } }),
        AdapterRequestError,
      );
    });

    test('a tier the offer lacks is refused', () => {
      const offer = { ...input().offer, tiers: ['standard' as const] };
      assert.throws(() => adapter.buildRequest(input({ offer, tier: 'flex' })), AdapterRequestError);
    });

    test('answers are native for a Gemini client, decoded for another', () => {
      const json = fixtureText('tool-call-completion.fixture.json');
      const native = adapter.parseResponse(json, { clientApi: 'gemini-generate' });
      assert.deepEqual(native.native, { api: 'gemini-generate', body: JSON.parse(json) as JsonObject });
      assert.equal(native.response.finishReason, 'tool_calls', 'still metered and routed on');
      assert.equal(adapter.parseResponse(json, { clientApi: 'openai-chat' }).native, undefined);
    });

    test('a native stream: every chunk as it came, plus only the metering and the ends', () => {
      const bytes = fixtureBytes('tool-call-stream.fixture.sse');
      const out = collectStream(adapter.createStreamTranslator({ clientApi: 'gemini-generate' }), bytes);
      const chunks = new TextDecoder()
        .decode(bytes)
        .split(/\r?\n\r?\n/)
        .filter((event) => event.startsWith('data: '))
        .map((event) => JSON.parse(event.slice(6)) as unknown);
      assert.deepEqual(
        out.events.flatMap((event) => (event.type === 'native' ? [event.data] : [])),
        chunks,
      );
      assert.deepEqual([...new Set(out.events.map((event) => event.type))].sort(), [
        'done',
        'finish',
        'native',
        'start',
        'usage',
      ]);
      assert.equal(out.toolCalls.length, 0, 'no decoded content beside the native chunks');
      assert.ok(out.usage);
    });
  });
}

describe('gemini flex: a body field on the Developer API, a header on Vertex', () => {
  test('the gateway’s tier replaces the client’s', () => {
    assert.equal(sent(geminiAdapter, { tier: 'flex' }).serviceTier, 'flex');
    const vertex = vertexGeminiAdapter.buildRequest(input({ tier: 'flex' }));
    assert.equal(vertex.headers['X-Vertex-AI-LLM-Shared-Request-Type'], 'flex');
    assert.equal((JSON.parse(vertex.body) as JsonObject).serviceTier, undefined);
  });
});

describe('gemini token counters', () => {
  const contents = [{ role: 'user', parts: [{ text: 'Say hello' }] }];
  const toolConfig = { functionCallingConfig: { mode: 'AUTO' } };
  const prompt = { contents, generationConfig: { temperature: 1 } };
  const source = { api: 'gemini-generate' as const, body: { ...prompt, toolConfig } };
  const where = { offer: input().offer, endpoint: input().endpoint };

  test('Developer API: a generateContentRequest naming the model', () => {
    const counter = tokenCounterFor('gemini', 'gemini-generate');
    assert.ok(counter);
    const built = counter.buildRequest({ source, ...where });
    assert.equal(built.url, 'https://upstream.example/v1beta/models/gemini-3.5-flash:countTokens');
    assert.deepEqual(JSON.parse(built.body), {
      generateContentRequest: {
        model: 'models/gemini-3.5-flash',
        ...prompt,
        toolConfig,
      },
    });
    assert.equal(counter.parseResponse('{"totalTokens":42}'), 42);
  });

  test('Vertex: the prompt fields under the project and location', () => {
    const counter = tokenCounterFor('vertex-gemini', 'gemini-generate');
    assert.ok(counter);
    const built = counter.buildRequest({ source, ...where });
    assert.equal(
      built.url,
      'https://upstream.example/v1beta/projects/proj/locations/global/publishers/google/models/gemini-3.5-flash:countTokens',
    );
    assert.deepEqual(JSON.parse(built.body), prompt, 'no toolConfig: Vertex’s counter has no such field');
  });

  test('only for a Gemini body: a Messages client’s count on a Gemini model is the gateway’s estimate', () => {
    assert.equal(geminiAdapter.countTokens, undefined);
    assert.equal(vertexGeminiAdapter.countTokens, undefined);
    assert.equal(tokenCounterFor('gemini', 'anthropic-messages'), undefined);
    assert.equal(tokenCounterFor('anthropic', 'gemini-generate'), undefined);
    assert.equal(tokenCounterFor('anthropic', 'anthropic-messages'), ADAPTERS.anthropic.countTokens);
    const messages = { api: 'anthropic-messages' as const, body: { messages: [] } };
    assert.throws(
      () => tokenCounterFor('gemini', 'gemini-generate')?.buildRequest({ source: messages, ...where }),
      AdapterRequestError,
    );
  });
});
