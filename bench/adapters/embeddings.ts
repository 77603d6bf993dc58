/**
 * The embeddings rows of the adapters benchmark: per adapter and model family, building the
 * upstream requests of a 16-text batch and parsing the upstream's answers to them, against the
 * least a proxy must do with those answers (`JSON.parse` of each body), measured in the same
 * run. The answers are real ones: the simulator answers the built requests once, before timing.
 * Also the OpenAI answer the gateway writes, as floats and as base64, against `JSON.stringify`.
 */
import type {
  EmbeddingsReply,
  EmbeddingsRequest,
  EmbeddingsResult,
  EmbeddingsTarget,
  ProviderAdapter,
} from '../../packages/provider-adapters/src/index.ts';
import { ADAPTERS, encodeOpenAIEmbeddings } from '../../packages/provider-adapters/src/index.ts';
import { type Simulator, startSimulator } from '../../packages/upstream-simulator/src/server.ts';
import { googleAccessToken, sigV4Headers } from '../../packages/upstream-simulator/src/testing.ts';
import type { Figure } from './rounds.ts';

type Add = (work: () => unknown) => Figure;

interface Case {
  readonly label: string;
  readonly adapter: ProviderAdapter;
  readonly target: (sim: Simulator) => EmbeddingsTarget;
  readonly dimensions?: number;
  readonly credentials: (
    sim: Simulator,
    token: string,
    request: PlainRequest,
  ) => Promise<Record<string, string>>;
}

type PlainRequest = { method: string; url: string; headers: Readonly<Record<string, string>>; body: string };

const signed = (sim: Simulator, _token: string, request: PlainRequest) => sigV4Headers(sim, request);

const CASES: readonly Case[] = [
  {
    label: 'openai text-embedding-3-small',
    adapter: ADAPTERS.openai,
    target: (sim) => ({
      upstreamModel: 'text-embedding-3-small',
      endpoint: { baseUrl: `${sim.url}/openai/v1` },
    }),
    credentials: async (sim) => ({ authorization: `Bearer ${sim.credentials.openaiKey}` }),
  },
  {
    label: 'azure-openai text-embedding-3-small',
    adapter: ADAPTERS['azure-openai'],
    target: (sim) => ({
      upstreamModel: 'text-embedding-3-small',
      endpoint: { baseUrl: `${sim.url}/azure/openai` },
    }),
    credentials: async (sim) => ({ 'api-key': sim.credentials.azureKey }),
  },
  {
    label: 'gemini gemini-embedding-001 (1536)',
    adapter: ADAPTERS.gemini,
    target: (sim) => ({
      upstreamModel: 'gemini-embedding-001',
      endpoint: { baseUrl: `${sim.url}/gemini/v1beta` },
    }),
    dimensions: 1536,
    credentials: async (sim) => ({ 'x-goog-api-key': sim.credentials.geminiKey }),
  },
  {
    label: 'vertex-gemini gemini-embedding-001 (1536)',
    adapter: ADAPTERS['vertex-gemini'],
    target: (sim) => ({
      upstreamModel: 'gemini-embedding-001',
      endpoint: { baseUrl: `${sim.url}/vertex/v1`, project: 'sim-project', region: 'us-central1' },
    }),
    dimensions: 1536,
    credentials: async (_sim, token) => ({ authorization: `Bearer ${token}` }),
  },
  {
    label: 'bedrock titan-embed-text-v2 (1024)',
    adapter: ADAPTERS['bedrock-converse'],
    target: (sim) => ({
      upstreamModel: 'amazon.titan-embed-text-v2:0',
      endpoint: { baseUrl: `${sim.url}/bedrock` },
    }),
    credentials: signed,
  },
  {
    label: 'bedrock cohere.embed-english-v3 (1024)',
    adapter: ADAPTERS['bedrock-converse'],
    target: (sim) => ({
      upstreamModel: 'cohere.embed-english-v3',
      endpoint: { baseUrl: `${sim.url}/bedrock` },
    }),
    credentials: signed,
  },
];

const TEXTS = Array.from({ length: 16 }, (_, index) =>
  `Paragraph ${index}: the gateway routes each request to a provider, charges it, and logs it.`.repeat(2),
);

export interface EmbeddingsRow {
  readonly label: string;
  readonly calls: number;
  readonly build: Figure;
  readonly parse: Figure;
  /** JSON.parse of the same answer bodies. */
  readonly baseline: Figure;
}

async function answers(sim: Simulator, token: string, testCase: Case, request: EmbeddingsRequest) {
  const translator = testCase.adapter.embeddings;
  if (!translator) throw new Error(`${testCase.label}: no embeddings translator`);
  const requests = translator.buildRequests(request, testCase.target(sim));
  const replies: EmbeddingsReply[] = [];
  for (const built of requests) {
    const headers = { ...built.headers, ...(await testCase.credentials(sim, token, built)) };
    const response = await fetch(built.url, { method: built.method, headers, body: built.body });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`${testCase.label}: ${response.status} ${body}`);
    replies.push({ body, headers: Object.fromEntries(response.headers) });
  }
  return { translator, replies };
}

export interface EncodeFigures {
  readonly float: Figure;
  readonly base64: Figure;
  /** JSON.stringify of the bare vectors: the least an answer holding them costs. */
  readonly baseline: Figure;
}

/** Registers the rows' figures with `add`; the simulator's answers are fetched first. */
export async function embeddingsFigures(add: Add): Promise<{ rows: EmbeddingsRow[]; encode: EncodeFigures }> {
  const sim = await startSimulator();
  try {
    const token = await googleAccessToken(sim);
    const rows: EmbeddingsRow[] = [];
    let last: EmbeddingsResult | undefined;
    for (const testCase of CASES) {
      const request: EmbeddingsRequest = {
        inputs: TEXTS,
        encoding: 'float',
        ...(testCase.dimensions === undefined ? {} : { dimensions: testCase.dimensions }),
      };
      const { translator, replies } = await answers(sim, token, testCase, request);
      const target = testCase.target(sim);
      last = translator.parseResponses(replies, request);
      rows.push({
        label: testCase.label,
        calls: replies.length,
        build: add(() => translator.buildRequests(request, target)),
        parse: add(() => translator.parseResponses(replies, request)),
        baseline: add(() => replies.map((reply) => JSON.parse(reply.body) as unknown)),
      });
    }
    if (!last) throw new Error('no embeddings case ran');
    const result = last;
    return {
      rows,
      encode: {
        float: add(() => encodeOpenAIEmbeddings(result, { model: 'm', encoding: 'float' })),
        base64: add(() => encodeOpenAIEmbeddings(result, { model: 'm', encoding: 'base64' })),
        baseline: add(() => JSON.stringify(result.vectors)),
      },
    };
  } finally {
    await sim.close();
  }
}
