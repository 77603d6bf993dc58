import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AdapterRequestError, type BuildInput } from '../adapter.ts';
import { canonicalBuildInput } from '../conformance/canonical.ts';
import type { JsonObject } from '../json.ts';
import type { Turn } from '../model/content.ts';
import type { ModelRequest } from '../model/request.ts';
import { errorFixtures } from './fixtures.ts';
import { vertexGeminiAdapter as adapter } from './index.ts';

const base = canonicalBuildInput(false);
const ROOT = 'https://aiplatform.example/v1/projects/my-project/locations';

function input(request: Partial<ModelRequest> = {}, rest: Partial<BuildInput> = {}): BuildInput {
  return {
    ...base,
    request: { ...base.request, ...request },
    offer: {
      ...base.offer,
      upstreamModel: 'gemini-2.5-pro',
      tiers: ['standard', 'flex'],
      webSearchTool: 'googleSearch',
    },
    endpoint: { baseUrl: 'https://aiplatform.example/v1', project: 'my-project', region: 'global' },
    ...rest,
  };
}

describe('vertex-gemini request', () => {
  test('URL: project, location and publisher model; streams ask for SSE', () => {
    assert.equal(
      adapter.buildRequest(input()).url,
      `${ROOT}/global/publishers/google/models/gemini-2.5-pro:generateContent`,
    );
    const regional = input({ stream: true }, { endpoint: { ...input().endpoint, region: 'europe-west4' } });
    assert.equal(
      adapter.buildRequest(regional).url,
      `${ROOT}/europe-west4/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse`,
    );
  });

  test('flex is the shared-request-type header, never a body field, and only on global', () => {
    const flex = adapter.buildRequest(input({}, { tier: 'flex' }));
    assert.equal(flex.headers['X-Vertex-AI-LLM-Shared-Request-Type'], 'flex');
    assert.equal('serviceTier' in (JSON.parse(flex.body) as JsonObject), false);
    assert.equal(adapter.buildRequest(input()).headers['X-Vertex-AI-LLM-Shared-Request-Type'], undefined);
    const regional = input({}, { tier: 'flex', endpoint: { ...input().endpoint, region: 'us-central1' } });
    assert.throws(() => adapter.buildRequest(regional), AdapterRequestError);
  });

  test('an endpoint without project or region is a configuration error, not the client’s', () => {
    const broken = input({}, { endpoint: { baseUrl: 'https://aiplatform.example/v1' } });
    assert.throws(
      () => adapter.buildRequest(broken),
      (error: unknown) => error instanceof Error && !(error instanceof AdapterRequestError),
    );
  });

  test('the body is the shared codec’s: model role, signatures, gs:// media, search with excluded domains', () => {
    const turns: Turn[] = [
      { role: 'user', content: [{ type: 'image', source: { kind: 'url', url: 'gs://bucket/scan.pdf' } }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_call', id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}', signature: 'S' },
        ],
      },
    ];
    const tools = [{ type: 'web_search', blockedDomains: ['example.net'] }] as const;
    const body = JSON.parse(
      adapter.buildRequest(
        input({ turns, tools }, { reasoning: { kind: 'gemini-budget', budgetTokens: 128 } }),
      ).body,
    ) as JsonObject;
    assert.deepEqual(body.contents, [
      {
        role: 'user',
        parts: [{ fileData: { mimeType: 'application/pdf', fileUri: 'gs://bucket/scan.pdf' } }],
      },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: { city: 'Paris' }, id: 'c1' }, thoughtSignature: 'S' },
        ],
      },
    ]);
    assert.deepEqual(body.tools, [{ googleSearch: { excludeDomains: ['example.net'] } }]);
    assert.deepEqual((body.generationConfig as JsonObject).thinkingConfig, { thinkingBudget: 128 });
  });
});

describe('vertex-gemini errors', () => {
  test('expired token and denied permission are the gateway’s: 502 with its own words', () => {
    for (const name of ['unauthorized', 'forbidden'] as const) {
      const failure = adapter.mapError(errorFixtures[name]);
      assert.deepEqual([failure.kind, failure.status], ['auth', 502]);
      assert.doesNotMatch(failure.message, /sim-project|googleapis/);
    }
  });

  test('project names and numbers are scrubbed from client messages', () => {
    const failure = adapter.mapError(errorFixtures.badRequestWithProject);
    assert.deepEqual([failure.kind, failure.status], ['client', 400]);
    assert.match(failure.message, /temperature/);
    assert.doesNotMatch(failure.message, /482915730016|sim-project/);
  });

  test('429 keeps the Retry-After header; unknown model is 502', () => {
    assert.equal(adapter.mapError(errorFixtures.rateLimited).retryAfter, '7');
    assert.equal(adapter.mapError(errorFixtures.notFound).status, 502);
  });
});
