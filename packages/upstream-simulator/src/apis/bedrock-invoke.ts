/**
 * Bedrock Runtime's InvokeModel (`/bedrock/model/{modelId}/invoke`, SigV4 verified as for
 * Converse) for the embedding models: Titan Text Embeddings V2 (one `inputText`, 256/512/1024
 * dimensions, `normalize`, `embeddingTypes`) and Cohere Embed v3 (up to 96 `texts` of at most
 * 2048 characters, `input_type` required). Bodies are checked against the model's schema as
 * Bedrock does, refusals worded as its ValidationException; every answer carries Bedrock's
 * `X-Amzn-Bedrock-Input-Token-Count` header.
 */
import { randomUUID } from 'node:crypto';
import { embeddingOf, rawEmbeddingOf, textTokens } from '../embeddings.ts';
import { behaviourFor } from '../faults.ts';
import { sendJson } from '../respond.ts';
import { fail, sendAwsError } from './bedrock.ts';
import type { AwsRefusal } from './bedrock-sigv4.ts';
import { verifySigV4 } from './bedrock-sigv4.ts';
import { simUsage } from './openai-embeddings.ts';
import type { SimApi, SimExchange } from './types.ts';

type Body = Readonly<Record<string, unknown>>;
type Answer = { body: Record<string, unknown>; tokens: number } | AwsRefusal;

const ROUTE = /^\/bedrock\/model\/([^/]+)\/invoke$/;
const TITAN_FIELDS = new Set(['inputText', 'dimensions', 'normalize', 'embeddingTypes']);
const TITAN_MAX_CHARS = 50_000;
const TITAN_MAX_TOKENS = 8192;
const COHERE_FIELDS = new Set(['texts', 'images', 'input_type', 'truncate', 'embedding_types']);
const COHERE_INPUT_TYPES = new Set([
  'search_document',
  'search_query',
  'classification',
  'clustering',
  'image',
]);
const COHERE_TYPES = new Set(['float', 'int8', 'uint8', 'binary', 'ubinary']);
const COHERE_DIMENSIONS = 1024;

/** Bedrock's schema validation wording: `Malformed input request: <why>, please reformat ...`. */
function malformed(why: string): AwsRefusal {
  return {
    status: 400,
    type: 'ValidationException',
    message: `Malformed input request: ${why}, please reformat your input and try again.`,
  };
}

function extraneous(body: Body, allowed: ReadonlySet<string>): AwsRefusal | undefined {
  const unknown = Object.keys(body).find((name) => !allowed.has(name));
  return unknown === undefined ? undefined : malformed(`#: extraneous key [${unknown}] is not permitted`);
}

function titan(body: Body): Answer {
  const refused = extraneous(body, TITAN_FIELDS);
  if (refused) return refused;
  const text = body.inputText;
  if (typeof text !== 'string') return malformed('#: required key [inputText] not found');
  if (text.length === 0 || text.length > TITAN_MAX_CHARS)
    return malformed(
      `#/inputText: expected minLength: 1, maxLength: ${TITAN_MAX_CHARS}, actual: ${text.length}`,
    );
  const tokens = textTokens(text);
  if (tokens > TITAN_MAX_TOKENS)
    return {
      status: 400,
      type: 'ValidationException',
      message: `400 Bad Request: Too many input tokens. Max input tokens: ${TITAN_MAX_TOKENS}, request input token count: ${tokens}`,
    };
  const dimensions = body.dimensions ?? 1024;
  if (dimensions !== 256 && dimensions !== 512 && dimensions !== 1024)
    return malformed(`#/dimensions: ${JSON.stringify(dimensions)} is not a valid enum value`);
  const types = body.embeddingTypes ?? ['float'];
  if (!Array.isArray(types) || types.some((type) => type !== 'float' && type !== 'binary'))
    return malformed('#/embeddingTypes: expected a list of "float" and "binary"');
  const vector = body.normalize === false ? rawEmbeddingOf(text, dimensions) : embeddingOf(text, dimensions);
  const byType: Record<string, number[]> = { float: vector };
  if (types.includes('binary')) byType.binary = vector.map((value) => (value > 0 ? 1 : 0));
  return { body: { embedding: vector, inputTextTokenCount: tokens, embeddingsByType: byType }, tokens };
}

/** Cohere's quantized forms of a unit vector; the binary ones pack 8 signs a byte. */
function quantized(vector: readonly number[], type: string): number[] {
  if (type === 'int8') return vector.map((value) => Math.max(-128, Math.min(127, Math.round(value * 127))));
  if (type === 'uint8') return vector.map((value) => Math.round((value + 1) * 127.5));
  const bytes: number[] = [];
  for (let start = 0; start < vector.length; start += 8) {
    let byte = 0;
    for (let bit = 0; bit < 8; bit++) byte = (byte << 1) | ((vector[start + bit] ?? 0) > 0 ? 1 : 0);
    bytes.push(type === 'binary' ? byte - 128 : byte);
  }
  return bytes;
}

function cohereRefusal(body: Body): AwsRefusal | undefined {
  const texts = body.texts;
  if (!Array.isArray(texts) || texts.some((text) => typeof text !== 'string'))
    return malformed('#: required key [texts] not found');
  if (texts.length > 96) return malformed(`#/texts: expected maxItems: 96, actual: ${texts.length}`);
  const long = texts.findIndex((text: string) => text.length > 2048);
  if (long >= 0)
    return malformed(`#/texts/${long}: expected maxLength: 2048, actual: ${String(texts[long]).length}`);
  if (typeof body.input_type !== 'string') return malformed('#: required key [input_type] not found');
  if (!COHERE_INPUT_TYPES.has(body.input_type))
    return malformed(`#/input_type: ${body.input_type} is not a valid enum value`);
  if (body.truncate !== undefined && !['NONE', 'START', 'END'].includes(String(body.truncate)))
    return malformed(`#/truncate: ${String(body.truncate)} is not a valid enum value`);
  const types = body.embedding_types;
  if (types !== undefined && (!Array.isArray(types) || types.some((type) => !COHERE_TYPES.has(String(type)))))
    return malformed('#/embedding_types: expected float, int8, uint8, binary or ubinary');
  return undefined;
}

function cohere(body: Body): Answer {
  const refused = extraneous(body, COHERE_FIELDS) ?? cohereRefusal(body);
  if (refused) return refused;
  const texts = body.texts as string[];
  const vectors = texts.map((text) => embeddingOf(text, COHERE_DIMENSIONS));
  const tokens = texts.reduce((sum, text) => sum + textTokens(text), 0);
  const base = { id: randomUUID(), texts };
  const types = body.embedding_types as string[] | undefined;
  if (types === undefined)
    return { body: { ...base, embeddings: vectors, response_type: 'embeddings_floats' }, tokens };
  const embeddings = Object.fromEntries(
    types.map((type) => [
      type,
      type === 'float' ? vectors : vectors.map((vector) => quantized(vector, type)),
    ]),
  );
  return { body: { ...base, embeddings, response_type: 'embeddings_by_type' }, tokens };
}

/** The embedding model a model id names, with or without an inference profile's geography. */
function modelOf(modelId: string): ((body: Body) => Answer) | undefined {
  const bare = modelId.replace(/^(us|eu|apac|global)\./, '');
  if (bare === 'amazon.titan-embed-text-v2:0') return titan;
  if (bare === 'cohere.embed-english-v3' || bare === 'cohere.embed-multilingual-v3') return cohere;
  return undefined;
}

function answer(exchange: SimExchange, answerOf: (body: Body) => Answer): void {
  const body = exchange.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return sendAwsError(exchange.res, malformed('#: expected type: JSONObject, found: String'));
  const answered = answerOf(body as Body);
  if ('status' in answered) return sendAwsError(exchange.res, answered);
  exchange.reportUsage(simUsage(answered.tokens));
  sendJson(exchange.res, 200, JSON.stringify(answered.body), {
    'x-amzn-requestid': randomUUID(),
    'x-amzn-bedrock-input-token-count': String(answered.tokens),
    'x-amzn-bedrock-invocation-latency': '1',
  });
}

export const bedrockInvokeApi: SimApi = {
  name: 'bedrock-invoke',
  matches: (method, path) => method === 'POST' && ROUTE.test(path),
  async handle(context, exchange) {
    const refusedAuth = await verifySigV4(context, exchange);
    if (refusedAuth !== undefined) return sendAwsError(exchange.res, refusedAuth);
    const modelId = decodeURIComponent(ROUTE.exec(exchange.path)?.[1] ?? '');
    const answerOf = modelOf(modelId);
    if (!answerOf)
      return sendAwsError(exchange.res, {
        status: 400,
        type: 'ValidationException',
        message: 'The provided model identifier is invalid.',
      });
    const behaviour = behaviourFor(exchange.req.headers, {}, context.state.options.behaviour ?? {});
    if (behaviour.failStatus !== undefined) return fail(exchange.res, behaviour);
    answer(exchange, answerOf);
  },
};
