import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdapterRequestError, type UpstreamHttpRequest } from '../adapter.ts';
import { runEmbeddingsConformance, tokensOf, vectorOf } from '../conformance/embeddings.ts';
import { bedrockConverseAdapter } from './index.ts';

type TitanBody = { inputText: string; dimensions?: number; normalize?: boolean };
type CohereBody = { texts: string[]; input_type: string; truncate?: string };

const endpoint = { baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com' };

const titanTexts = (request: UpstreamHttpRequest) => [(JSON.parse(request.body) as TitanBody).inputText];
const cohereTexts = (request: UpstreamHttpRequest) => (JSON.parse(request.body) as CohereBody).texts;

/** Titan V2 in miniature: the count in the body. */
function titanAnswer(request: UpstreamHttpRequest) {
  const [text = ''] = titanTexts(request);
  const embedding = vectorOf(text);
  const body = { embedding, inputTextTokenCount: tokensOf(text), embeddingsByType: { float: embedding } };
  return { body: JSON.stringify(body), headers: {} };
}

/** Cohere Embed v3 in miniature: the count only in Bedrock's header. */
function cohereAnswer(request: UpstreamHttpRequest) {
  const texts = cohereTexts(request);
  const tokens = texts.reduce((sum, text) => sum + tokensOf(text), 0);
  const body = { id: 'e1', texts, embeddings: texts.map(vectorOf), response_type: 'embeddings_floats' };
  return { body: JSON.stringify(body), headers: { 'x-amzn-bedrock-input-token-count': String(tokens) } };
}

/** docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html, V2 response. */
const titanExample = {
  reply: {
    body: JSON.stringify({
      embedding: [0.1, -0.2],
      inputTextTokenCount: 3,
      embeddingsByType: { float: [0.1, -0.2] },
    }),
    headers: {},
  },
  first: [0.1, -0.2],
  tokens: 3,
};

/** docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed-v3.html, response with embedding_types. */
const cohereExample = {
  reply: {
    body: JSON.stringify({
      id: 'x',
      texts: ['hello world'],
      embeddings: { float: [[0.25, 0.5]] },
      response_type: 'embeddings_by_type',
    }),
    headers: { 'x-amzn-bedrock-input-token-count': '2' },
  },
  first: [0.25, 0.5],
  tokens: 2,
};

runEmbeddingsConformance(bedrockConverseAdapter, {
  label: 'Titan Text Embeddings V2',
  target: { upstreamModel: 'amazon.titan-embed-text-v2:0', endpoint },
  answer: titanAnswer,
  textsOf: titanTexts,
  takesTokenIds: false,
  example: titanExample,
});
runEmbeddingsConformance(bedrockConverseAdapter, {
  label: 'Cohere Embed v3',
  target: { upstreamModel: 'cohere.embed-english-v3', endpoint },
  answer: cohereAnswer,
  textsOf: cohereTexts,
  takesTokenIds: false,
  example: cohereExample,
});

const translator = bedrockConverseAdapter.embeddings;

test('Titan: InvokeModel of the model, normalized, only the dimensions the model has', () => {
  assert.ok(translator);
  const target = { upstreamModel: 'amazon.titan-embed-text-v2:0', endpoint };
  const [call] = translator.buildRequests({ inputs: ['hi'], encoding: 'float', dimensions: 512 }, target);
  assert.deepEqual(call, {
    method: 'POST',
    url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.titan-embed-text-v2%3A0/invoke',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ inputText: 'hi', dimensions: 512, normalize: true }),
  });
  assert.throws(
    () => translator.buildRequests({ inputs: ['hi'], encoding: 'float', dimensions: 300 }, target),
    /dimensions must be 256, 512 or 1024/,
  );
});

test('Cohere: documents by default, no truncation, no dimensions; other models are refused', () => {
  assert.ok(translator);
  const target = { upstreamModel: 'us.cohere.embed-multilingual-v3', endpoint };
  const [call] = translator.buildRequests({ inputs: ['a', 'b'], encoding: 'float' }, target);
  assert.deepEqual(JSON.parse(call?.body ?? ''), {
    texts: ['a', 'b'],
    input_type: 'search_document',
    truncate: 'NONE',
  });
  assert.throws(
    () => translator.buildRequests({ inputs: ['a'], encoding: 'float', dimensions: 256 }, target),
    AdapterRequestError,
  );
  const claude = { upstreamModel: 'anthropic.claude-sonnet-4-6', endpoint };
  assert.throws(
    () => translator.buildRequests({ inputs: ['a'], encoding: 'float' }, claude),
    AdapterRequestError,
  );
});

test('Cohere without the token-count header: estimated, and said to be', () => {
  assert.ok(translator);
  const reply = { body: JSON.stringify({ embeddings: [[1, 2]] }), headers: {} };
  const result = translator.parseResponses([reply], { inputs: ['abcdefgh'], encoding: 'float' });
  assert.deepEqual(result.usage, { meters: { input: 2 }, inputTokens: 2, estimated: true });
});
