import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AdapterRequestError, type BuildInput } from '../adapter.ts';
import { collectStream } from '../conformance/collect.ts';
import { canonicalBuildInput } from '../conformance/canonical.ts';
import type { JsonObject } from '../json.ts';
import type { OfferProfile } from '../model/profile.ts';
import { errorFixtures, fixtureBytes, fixtureText } from './fixtures.ts';
import { vertexClaudeAdapter as adapter } from './index.ts';

const OFFER: OfferProfile = {
  upstreamModel: 'claude-sonnet-4-5@20250929',
  efforts: { none: { kind: 'omit' } },
  tiers: ['standard'],
  webSearchTool: 'web_search_20250305',
  defaultMaxOutputTokens: 4096,
  maxOutputTokens: 64000,
};

function input(stream: boolean, overrides: Partial<BuildInput> = {}): BuildInput {
  const base = canonicalBuildInput(stream);
  return {
    ...base,
    offer: OFFER,
    endpoint: { baseUrl: 'https://us-east5-aiplatform.example/v1', region: 'us-east5', project: 'proj-1' },
    ...overrides,
  };
}

describe('vertex-claude request', () => {
  test('rawPredict and streamRawPredict URLs name project, region and model', () => {
    const prefix =
      'https://us-east5-aiplatform.example/v1/projects/proj-1/locations/us-east5/publishers/anthropic/models/';
    assert.equal(adapter.buildRequest(input(false)).url, `${prefix}claude-sonnet-4-5@20250929:rawPredict`);
    const streamed = adapter.buildRequest(input(true));
    assert.equal(streamed.url, `${prefix}claude-sonnet-4-5@20250929:streamRawPredict`);
    assert.equal(streamed.headers.accept, 'text/event-stream');
  });

  test('body has anthropic_version and no model; max_tokens present; no anthropic-version header', () => {
    const built = adapter.buildRequest(input(true));
    const json = JSON.parse(built.body) as JsonObject;
    assert.equal(json.anthropic_version, 'vertex-2023-10-16');
    assert.equal('model' in json, false);
    assert.equal(json.max_tokens, 2048);
    assert.equal(json.stream, true);
    assert.equal('anthropic-version' in built.headers, false);
  });

  test('effort as on Anthropic: adaptive + output_config.effort', () => {
    const json = JSON.parse(
      adapter.buildRequest(input(false, { reasoning: { kind: 'anthropic-adaptive', effort: 'max' } })).body,
    ) as JsonObject;
    assert.deepEqual([json.thinking, json.output_config], [{ type: 'adaptive' }, { effort: 'max' }]);
  });

  test('passthrough: client betas become the anthropic-beta header, unknown fields kept, model dropped', () => {
    const source = {
      api: 'anthropic-messages' as const,
      body: { model: 'x', max_tokens: 10, messages: [], betas: ['web-search-2025-03-05'], custom: 1 },
    };
    const built = adapter.buildRequest(input(false, { source }));
    const json = JSON.parse(built.body) as JsonObject;
    assert.equal(built.headers['anthropic-beta'], 'web-search-2025-03-05');
    assert.deepEqual([json.model, json.custom, json.max_tokens, json.betas], [undefined, 1, 10, undefined]);
  });

  test('an endpoint without project or region cannot be addressed', () => {
    assert.throws(
      () => adapter.buildRequest(input(false, { endpoint: { baseUrl: 'https://x.example/v1' } })),
      AdapterRequestError,
    );
  });
});

describe('vertex-claude responses and errors', () => {
  test('native only for an anthropic-messages client', () => {
    const native = { clientApi: 'anthropic-messages' } as const;
    assert.ok(adapter.parseResponse(fixtureText('text-completion.fixture.json'), native).native);
    const out = collectStream(
      adapter.createStreamTranslator(native),
      fixtureBytes('tool-call-stream.fixture.sse'),
    );
    assert.ok(out.native > 0);
    assert.deepEqual(out.toolCalls, []);
  });

  test("Google's envelope and Anthropic's", () => {
    const status = (name: keyof typeof errorFixtures) => {
      const failure = adapter.mapError(errorFixtures[name]);
      return [failure.kind, failure.status];
    };
    assert.deepEqual(status('badRequestGoogle'), ['client', 400]);
    assert.deepEqual(status('forbidden'), ['auth', 502]);
    assert.deepEqual(status('notFound'), ['server', 502]);
    assert.deepEqual(status('overloaded'), ['server', 503]);
    assert.deepEqual(status('rateLimited'), ['rate_limited', 429]);
    assert.doesNotMatch(adapter.mapError(errorFixtures.badRequestGoogle).message, /googleapis/);
  });
});
