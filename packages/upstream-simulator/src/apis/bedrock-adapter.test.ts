import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BuildInput } from '@app/provider-adapters/adapter.ts';
import { bedrockConverseAdapter as adapter } from '@app/provider-adapters/bedrock-converse/index.ts';
import { collectStream } from '@app/provider-adapters/conformance/collect.ts';
import { CANONICAL_REQUEST } from '@app/provider-adapters/conformance/canonical.ts';
import type { EffortExpression, OfferProfile, Tier } from '@app/provider-adapters/model/profile.ts';
import type { ModelRequest } from '@app/provider-adapters/model/request.ts';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { type Simulator, startSimulator } from '../server.ts';

/**
 * The gateway's Bedrock adapter against the simulated Bedrock (which the AWS SDK test holds to
 * the real service): every effort kind the catalog uses must produce a request Bedrock accepts.
 */
let sim: Simulator;
before(async () => {
  sim = await startSimulator();
});
after(() => sim.close());

const context = { clientApi: 'openai-chat' } as const;

function offer(upstreamModel: string, efforts: OfferProfile['efforts']): OfferProfile {
  return {
    upstreamModel,
    efforts,
    tiers: ['standard'],
    defaultMaxOutputTokens: 4096,
    maxOutputTokens: 64000,
  };
}

async function send(input: BuildInput): Promise<Response> {
  const built = adapter.buildRequest(input);
  const url = new URL(built.url);
  const { accessKeyId, secretAccessKey, region } = sim.credentials.aws;
  const signer = new SignatureV4({
    credentials: { accessKeyId, secretAccessKey },
    region,
    service: 'bedrock',
    sha256: Hash.bind(null, 'sha256'),
  });
  const signed = await signer.sign({
    method: built.method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    headers: { ...built.headers, host: url.host },
    body: built.body,
  });
  return fetch(built.url, { method: built.method, headers: signed.headers, body: built.body });
}

function input(
  model: OfferProfile,
  reasoning: EffortExpression,
  request: Partial<ModelRequest> = {},
  tier: Tier = 'standard',
): BuildInput {
  return {
    request: { ...CANONICAL_REQUEST, ...request },
    source: undefined,
    offer: model,
    endpoint: { baseUrl: `${sim.url}/bedrock`, region: 'us-east-1' },
    reasoning,
    tier,
  };
}

const question: Partial<ModelRequest> = {
  turns: [{ role: 'user', content: [{ type: 'text', text: 'What is the capital of France?' }] }],
  temperature: 0.2,
  topP: 0.5,
  toolChoice: { type: 'required' },
};

const useWeather: Partial<ModelRequest> = {
  ...question,
  turns: [{ role: 'user', content: [{ type: 'text', text: 'Use get_weather for Paris' }] }],
};

describe('bedrock-converse adapter against the simulated Bedrock', () => {
  test('Claude 4.5 budget thinking (limit raised above the budget): accepted, signed thinking back', async () => {
    const sonnet45 = offer('us.anthropic.claude-sonnet-4-5-20250929-v1:0', {});
    const response = await send(
      input(
        sonnet45,
        { kind: 'anthropic-budget', budgetTokens: 4096 },
        { ...question, maxOutputTokens: 2048 },
      ),
    );
    assert.equal(response.status, 200, await response.clone().text());
    const { response: parsed } = adapter.parseResponse(await response.text(), context);
    const thinking = parsed.content.find((part) => part.type === 'thinking');
    assert.ok(thinking?.type === 'thinking' && thinking.signature);
  });

  test('Claude 4.6 adaptive + effort, streamed: thinking, tool calls and usage', async () => {
    const sonnet46 = offer('global.anthropic.claude-sonnet-4-6', {});
    const response = await send(
      // Thinking leaves the tool choice to the model, which calls a tool when asked to.
      input(sonnet46, { kind: 'anthropic-adaptive', effort: 'max' }, { ...useWeather, stream: true }),
    );
    assert.equal(response.status, 200, await response.clone().text());
    const bytes = new Uint8Array(await response.arrayBuffer());
    const out = collectStream(adapter.createStreamTranslator(context), bytes, [7, 100, 101]);
    assert.notEqual(out.thinking, '');
    assert.ok(out.thinkingSignature);
    assert.deepEqual(out.finishReasons, ['tool_calls']);
    assert.equal(out.toolCalls[0]?.name, 'get_weather');
    assert.ok((out.usage?.outputTokens ?? 0) > 64);
    assert.ok(out.done);
  });

  test('Opus 4.7 adaptive-only, and omit on Haiku 4.5: accepted; the canonical tool loop is answered', async () => {
    const opus = offer('eu.anthropic.claude-opus-4-7', {});
    const adaptive = await send(input(opus, { kind: 'anthropic-adaptive', effort: 'xhigh' }, question));
    assert.equal(adaptive.status, 200, await adaptive.text());
    const haiku = offer('global.anthropic.claude-haiku-4-5-20251001-v1:0', {});
    const loop = await send(input(haiku, { kind: 'omit' }));
    assert.equal(loop.status, 200);
    const { response: parsed } = adapter.parseResponse(await loop.text(), context);
    assert.equal(parsed.finishReason, 'stop');
    assert.match(parsed.content[0]?.type === 'text' ? parsed.content[0].text : '', /^The tool returned:/);
  });

  test("Bedrock's refusals map to the gateway's failures", async () => {
    const bare = await send(input(offer('anthropic.claude-sonnet-4-5-20250929-v1:0', {}), { kind: 'omit' }));
    const profile = adapter.mapError({
      status: bare.status,
      headers: Object.fromEntries(bare.headers),
      body: await bare.text(),
    });
    assert.deepEqual([profile.kind, profile.status], ['server', 502]);
    assert.match(profile.message, /inference profile/);
    const flex = await send(input(offer('us.anthropic.claude-sonnet-4-6', {}), { kind: 'omit' }, {}, 'flex'));
    const failure = adapter.mapError({
      status: flex.status,
      headers: Object.fromEntries(flex.headers),
      body: await flex.text(),
    });
    assert.deepEqual([failure.kind, failure.status], ['client', 400]);
  });
});
