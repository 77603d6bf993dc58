import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ProviderAdapter, UpstreamHttpRequest } from '@app/provider-adapters/adapter.ts';
import { azureOpenAIAdapter } from '@app/provider-adapters/azure-openai/index.ts';
import { bedrockConverseAdapter } from '@app/provider-adapters/bedrock-converse/index.ts';
import {
  decodeFloat32Base64,
  encodeOpenAIEmbeddings,
} from '@app/provider-adapters/embeddings/openai-encoding.ts';
import { geminiAdapter } from '@app/provider-adapters/gemini/index.ts';
import type { EmbeddingsRequest, EmbeddingsTarget } from '@app/provider-adapters/model/embeddings.ts';
import { openAIAdapter } from '@app/provider-adapters/openai/index.ts';
import { openAICompatibleAdapter } from '@app/provider-adapters/openai-compatible/index.ts';
import { vertexGeminiAdapter } from '@app/provider-adapters/vertex-gemini/index.ts';
import { embeddingOf, textTokens } from '../embeddings.ts';
import { type Simulator, startSimulator } from '../server.ts';
import { googleAccessToken, sigV4Headers } from '../testing.ts';

/**
 * The gateway's embeddings translators against the simulated APIs (which the SDK tests hold to
 * the real ones): each adapter's requests are accepted, split where the API needs it, and the
 * parsed vectors are the simulator's vectors of each text, in input order, with its usage.
 */
let sim: Simulator;
let googleToken: string;
before(async () => {
  sim = await startSimulator();
  googleToken = await googleAccessToken(sim);
});
after(() => sim.close());

interface Case {
  readonly adapter: ProviderAdapter;
  readonly target: () => EmbeddingsTarget;
  readonly credentials: (request: UpstreamHttpRequest) => Promise<Record<string, string>>;
  readonly inputs: number;
  readonly calls: number;
  readonly dimensions?: number;
  /** The full vector length when no dimensions are asked. */
  readonly full: number;
  /** OpenAI's API carries float32: the vectors come back rounded to it. */
  readonly float32?: boolean;
}

const signed = (request: UpstreamHttpRequest) => sigV4Headers(sim, request);

const CASES: Record<string, Case> = {
  'OpenAI (base64 on the wire)': {
    adapter: openAIAdapter,
    target: () => ({
      upstreamModel: 'text-embedding-3-small',
      endpoint: { baseUrl: `${sim.url}/openai/v1` },
    }),
    credentials: async () => ({ authorization: `Bearer ${sim.credentials.openaiKey}` }),
    inputs: 3,
    calls: 1,
    dimensions: 64,
    full: 1536,
    float32: true,
  },
  'OpenAI-compatible server (any model, no key)': {
    adapter: openAICompatibleAdapter,
    target: () => ({ upstreamModel: 'local-embedder', endpoint: { baseUrl: sim.baseUrl } }),
    credentials: async () => ({}),
    inputs: 2,
    calls: 1,
    full: 1536,
    float32: true,
  },
  'Azure OpenAI (classic deployment)': {
    adapter: azureOpenAIAdapter,
    target: () => ({
      upstreamModel: 'text-embedding-3-large',
      endpoint: { baseUrl: `${sim.url}/azure/openai`, apiVersion: '2024-10-21' },
    }),
    credentials: async () => ({ 'api-key': sim.credentials.azureKey }),
    inputs: 2,
    calls: 1,
    full: 3072,
    float32: true,
  },
  'Gemini API (101 texts: two batches)': {
    adapter: geminiAdapter,
    target: () => ({
      upstreamModel: 'gemini-embedding-001',
      endpoint: { baseUrl: `${sim.url}/gemini/v1beta` },
    }),
    credentials: async () => ({ 'x-goog-api-key': sim.credentials.geminiKey }),
    inputs: 101,
    calls: 2,
    dimensions: 8,
    full: 3072,
  },
  'Vertex AI gemini-embedding-001 (one text a call)': {
    adapter: vertexGeminiAdapter,
    target: () => ({
      upstreamModel: 'gemini-embedding-001',
      endpoint: { baseUrl: `${sim.url}/vertex/v1`, project: 'sim-project', region: 'us-central1' },
    }),
    credentials: async () => ({ authorization: `Bearer ${googleToken}` }),
    inputs: 3,
    calls: 3,
    dimensions: 128,
    full: 3072,
  },
  'Bedrock Titan Text Embeddings V2 (one text a call)': {
    adapter: bedrockConverseAdapter,
    target: () => ({
      upstreamModel: 'amazon.titan-embed-text-v2:0',
      endpoint: { baseUrl: `${sim.url}/bedrock` },
    }),
    credentials: signed,
    inputs: 2,
    calls: 2,
    dimensions: 256,
    full: 1024,
  },
  'Bedrock Cohere Embed v3 (97 texts: two calls)': {
    adapter: bedrockConverseAdapter,
    target: () => ({
      upstreamModel: 'cohere.embed-multilingual-v3',
      endpoint: { baseUrl: `${sim.url}/bedrock` },
    }),
    credentials: signed,
    inputs: 97,
    calls: 2,
    full: 1024,
  },
};

async function send(request: UpstreamHttpRequest, headers: Record<string, string>) {
  const response = await fetch(request.url, { method: request.method, headers, body: request.body });
  const answered: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    answered[name] = value;
  });
  return { status: response.status, body: await response.text(), headers: answered };
}

async function sendAll(
  testCase: Case,
  requests: readonly UpstreamHttpRequest[],
  extra: Record<string, string> = {},
) {
  return Promise.all(
    requests.map(async (request) => {
      const withExtra = { ...request, headers: { ...request.headers, ...extra } };
      return send(withExtra, { ...withExtra.headers, ...(await testCase.credentials(withExtra)) });
    }),
  );
}

for (const [name, testCase] of Object.entries(CASES)) {
  describe(`${name}: adapter round trip through the simulator`, () => {
    const texts = Array.from({ length: testCase.inputs }, (_, index) => `document ${index % 5} of the batch`);
    const request: EmbeddingsRequest = {
      inputs: texts,
      encoding: 'float',
      ...(testCase.dimensions === undefined ? {} : { dimensions: testCase.dimensions }),
    };

    test('accepted, split as the API needs, vectors in order with the usage the API reported', async () => {
      const translator = testCase.adapter.embeddings;
      assert.ok(translator);
      const requests = translator.buildRequests(request, testCase.target());
      assert.equal(requests.length, testCase.calls);
      const replies = await sendAll(testCase, requests);
      for (const reply of replies) assert.equal(reply.status, 200, reply.body);
      const result = translator.parseResponses(replies, request);
      const size = testCase.dimensions ?? testCase.full;
      const round = (vector: number[]) => (testCase.float32 ? Array.from(Float32Array.from(vector)) : vector);
      assert.deepEqual(
        result.vectors,
        texts.map((text) => round(embeddingOf(text, size))),
      );
      const tokens = texts.reduce((sum, text) => sum + textTokens(text), 0);
      assert.deepEqual(result.usage, { meters: { input: tokens }, inputTokens: tokens, estimated: false });
      const encoded = JSON.parse(encodeOpenAIEmbeddings(result, { model: 'm', encoding: 'base64' })) as {
        data: { embedding: string }[];
        usage: { prompt_tokens: number };
      };
      assert.deepEqual(
        encoded.data.map((item) => decodeFloat32Base64(item.embedding)),
        result.vectors.map((vector) => Array.from(Float32Array.from(vector))),
      );
      assert.equal(encoded.usage.prompt_tokens, tokens);
    });

    test('an upstream rate limit maps to a retryable 429', async () => {
      const translator = testCase.adapter.embeddings;
      assert.ok(translator);
      const [first] = translator.buildRequests({ inputs: ['x'], encoding: 'float' }, testCase.target());
      assert.ok(first);
      const [reply] = await sendAll(testCase, [first], {
        'x-sim-fail-status': '429',
        'x-sim-retry-after': '2',
      });
      assert.ok(reply);
      assert.equal(reply.status, 429);
      const failure = testCase.adapter.mapError(reply);
      assert.deepEqual([failure.kind, failure.status, failure.retryAfter], ['rate_limited', 429, '2']);
    });
  });
}
