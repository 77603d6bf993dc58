/**
 * Gemini embeddings both ways. The Developer API: `models/{m}:embedContent` (one content) and
 * `:batchEmbedContents` (at most 100 requests, each naming the path's model), with the key as
 * for generateContent. Vertex AI: `publishers/google/models/{m}:predict` with an access token,
 * one instance per call for gemini-embedding-001 and up to 250 for text-embedding-005, 2048
 * tokens a text (truncated unless `autoTruncate` is false, then a 400). Vectors come from
 * embeddings.ts; unknown fields are refused as Google refuses them.
 */
import { embeddingOf, textTokens } from '../embeddings.ts';
import { behaviourFor } from '../faults.ts';
import { sendJson } from '../respond.ts';
import { type GoogleError, invalidArgument } from './gemini-checks.ts';
import { BAD_KEY, failure, sendError, unknownModel } from './gemini.ts';
import { simUsage } from './openai-embeddings.ts';
import type { SimApi, SimContext, SimExchange } from './types.ts';

type Body = Readonly<Record<string, unknown>>;

const GEMINI_PATH = /^\/gemini\/v1beta\/models\/([^/:]+):(embedContent|batchEmbedContents)$/;

/** The Developer API's embedding model: 3072 dimensions, shortened by `outputDimensionality`. */
const GEMINI_EMBEDDING_MODELS: Readonly<Record<string, number>> = { 'gemini-embedding-001': 3072 };
const MAX_BATCH = 100;
const MAX_TEXT_TOKENS = 2048;
const TASK_TYPES = new Set([
  'TASK_TYPE_UNSPECIFIED',
  'RETRIEVAL_QUERY',
  'RETRIEVAL_DOCUMENT',
  'SEMANTIC_SIMILARITY',
  'CLASSIFICATION',
  'CLUSTERING',
  'QUESTION_ANSWERING',
  'FACT_VERIFICATION',
  'CODE_RETRIEVAL_QUERY',
]);
const EMBED_FIELDS = new Set(['model', 'content', 'taskType', 'title', 'outputDimensionality']);

function object(value: unknown): Body | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Body) : undefined;
}

const unknownField = (name: string) =>
  invalidArgument(`Invalid JSON payload received. Unknown name "${name}": Cannot find field.`);

function partsText(content: unknown): string | undefined {
  const parts = object(content)?.parts;
  if (!Array.isArray(parts) || parts.length === 0) return undefined;
  return parts.map((part) => String(object(part)?.text ?? '')).join(' ');
}

/** One EmbedContentRequest's text and size, or Google's refusal of it. */
function embedRequest(
  request: unknown,
  where: string,
  full: number,
): { text: string; dimensions: number } | GoogleError {
  const fields = object(request);
  if (!fields) return invalidArgument(`* ${where}: Expected an object.\n`);
  const unknown = Object.keys(fields).find((name) => !EMBED_FIELDS.has(name));
  if (unknown !== undefined) return unknownField(unknown);
  const text = partsText(fields.content);
  if (text === undefined) return invalidArgument(`* ${where}.content: contents is not specified\n`);
  if (fields.taskType !== undefined && !TASK_TYPES.has(String(fields.taskType)))
    return invalidArgument(`Invalid value at '${where}.task_type', "${String(fields.taskType)}"`);
  const asked = fields.outputDimensionality;
  if (asked !== undefined && (!Number.isInteger(asked) || (asked as number) < 1 || (asked as number) > full))
    return invalidArgument(`* ${where}.output_dimensionality: must be between 1 and ${full}.\n`);
  return { text, dimensions: (asked as number | undefined) ?? full };
}

function answered(exchange: SimExchange, texts: readonly string[], body: Record<string, unknown>): void {
  const promptTokenCount = texts.reduce((sum, text) => sum + textTokens(text), 0);
  exchange.reportUsage(simUsage(promptTokenCount));
  sendJson(exchange.res, 200, JSON.stringify({ ...body, usageMetadata: { promptTokenCount } }));
}

/** `:embedContent` or `:batchEmbedContents` of a known model, key checked. */
function geminiEmbed(exchange: SimExchange, model: string, batch: boolean): void {
  const full = GEMINI_EMBEDDING_MODELS[model] ?? 0;
  const body = object(exchange.body);
  if (!batch) {
    const one = embedRequest(body, 'EmbedContentRequest', full);
    if ('code' in one) return sendError(exchange.res, one);
    return answered(exchange, [one.text], { embedding: { values: embeddingOf(one.text, one.dimensions) } });
  }
  const unknown = Object.keys(body ?? {}).find((name) => name !== 'requests');
  if (unknown !== undefined) return sendError(exchange.res, unknownField(unknown));
  const requests = Array.isArray(body?.requests) ? body.requests : [];
  if (requests.length === 0)
    return sendError(
      exchange.res,
      invalidArgument('* BatchEmbedContentsRequest.requests: requests is not specified\n'),
    );
  if (requests.length > MAX_BATCH)
    return sendError(
      exchange.res,
      invalidArgument('* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch\n'),
    );
  const texts: string[] = [];
  const embeddings: { values: number[] }[] = [];
  for (const [index, request] of requests.entries()) {
    const where = `BatchEmbedContentsRequest.requests[${index}]`;
    if (object(request)?.model !== `models/${model}`)
      return sendError(
        exchange.res,
        invalidArgument(`* ${where}.model: the model must be models/${model}, as in the URL.\n`),
      );
    const one = embedRequest(request, where, full);
    if ('code' in one) return sendError(exchange.res, one);
    texts.push(one.text);
    embeddings.push({ values: embeddingOf(one.text, one.dimensions) });
  }
  answered(exchange, texts, { embeddings });
}

function injectedFailure(context: SimContext, exchange: SimExchange): boolean {
  const behaviour = behaviourFor(exchange.req.headers, {}, context.state.options.behaviour ?? {});
  if (behaviour.failStatus === undefined) return false;
  const { error, headers } = failure(behaviour);
  sendError(exchange.res, error, headers);
  return true;
}

export const geminiEmbeddingsApi: SimApi = {
  name: 'gemini-embeddings',
  matches: (method, path) => method === 'POST' && GEMINI_PATH.test(path),
  async handle(context, exchange) {
    const [, rawModel = '', method] = GEMINI_PATH.exec(exchange.path) ?? [];
    const header = exchange.req.headers['x-goog-api-key'];
    const key = typeof header === 'string' ? header : exchange.query.get('key');
    if (key !== context.credentials.geminiKey) return sendError(exchange.res, BAD_KEY);
    const model = decodeURIComponent(rawModel);
    if (GEMINI_EMBEDDING_MODELS[model] === undefined) return sendError(exchange.res, unknownModel(model));
    if (injectedFailure(context, exchange)) return;
    geminiEmbed(exchange, model, method === 'batchEmbedContents');
  },
};

export { injectedFailure, MAX_TEXT_TOKENS, object, TASK_TYPES, unknownField };
