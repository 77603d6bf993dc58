/**
 * Vertex AI's text embeddings, `publishers/google/models/{m}:predict`: an access token from the
 * simulator's token endpoint; `instances[].content` (with `task_type`, `title`) and
 * `parameters.{autoTruncate, outputDimensionality}`; gemini-embedding-001 takes one instance a
 * call, text-embedding-005 up to 250 and 20,000 tokens in all; a text over 2048 tokens is
 * truncated unless `autoTruncate` is false, which makes it a 400. Each prediction reports its
 * tokens in `statistics.token_count`, and `metadata.billableCharacterCount` the characters.
 */
import { embeddingOf, textTokens } from '../embeddings.ts';
import { sendJson } from '../respond.ts';
import { type GoogleError, invalidArgument } from './gemini-checks.ts';
import { injectedFailure, MAX_TEXT_TOKENS, object, TASK_TYPES, unknownField } from './gemini-embeddings.ts';
import { sendError, unknownModel } from './gemini.ts';
import { requireGoogleToken } from './google-token.ts';
import { simUsage } from './openai-embeddings.ts';
import type { SimApi } from './types.ts';

type Body = Readonly<Record<string, unknown>>;

const VERTEX_PATH =
  /^\/vertex\/v1(?:beta1)?\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/google\/models\/([^/:]+):predict$/;

interface VertexModel {
  readonly dimensions: number;
  readonly instances: number;
}

const VERTEX_EMBEDDING_MODELS: Readonly<Record<string, VertexModel>> = {
  'gemini-embedding-001': { dimensions: 3072, instances: 1 },
  'text-embedding-005': { dimensions: 768, instances: 250 },
  'text-multilingual-embedding-002': { dimensions: 768, instances: 250 },
};
const MAX_REQUEST_TOKENS = 20_000;
const INSTANCE_FIELDS = new Set(['content', 'task_type', 'title', 'mimeType']);
const PARAMETER_FIELDS = new Set(['autoTruncate', 'outputDimensionality']);

interface Asked {
  readonly texts: string[];
  readonly dimensions: number;
  readonly autoTruncate: boolean;
}

function checkParameters(
  raw: unknown,
  spec: VertexModel,
): GoogleError | { dimensions: number; autoTruncate: boolean } {
  const parameters = object(raw) ?? {};
  const unknown = Object.keys(parameters).find((name) => !PARAMETER_FIELDS.has(name));
  if (unknown !== undefined) return unknownField(unknown);
  const asked = parameters.outputDimensionality;
  if (
    asked !== undefined &&
    (!Number.isInteger(asked) || (asked as number) < 1 || (asked as number) > spec.dimensions)
  )
    return invalidArgument(`Value for outputDimensionality must be between 1 and ${spec.dimensions}.`);
  return {
    dimensions: (asked as number | undefined) ?? spec.dimensions,
    autoTruncate: parameters.autoTruncate !== false,
  };
}

function checkInstances(raw: unknown, model: string, spec: VertexModel): GoogleError | string[] {
  if (!Array.isArray(raw) || raw.length === 0) return invalidArgument('instances is not specified.');
  if (raw.length > spec.instances)
    return invalidArgument(
      spec.instances === 1
        ? `Unable to submit request because ${model} supports only one instance per request. Send one text per request.`
        : `Unable to submit request because the request has ${raw.length} instances; ${model} takes at most ${spec.instances}.`,
    );
  const texts: string[] = [];
  for (const instance of raw) {
    const fields = object(instance);
    const unknown = Object.keys(fields ?? {}).find((name) => !INSTANCE_FIELDS.has(name));
    if (unknown !== undefined) return unknownField(unknown);
    if (typeof fields?.content !== 'string') return invalidArgument('instance.content must be a string.');
    if (fields.task_type !== undefined && !TASK_TYPES.has(String(fields.task_type)))
      return invalidArgument(`Invalid task_type: ${String(fields.task_type)}.`);
    texts.push(fields.content);
  }
  return texts;
}

/** What the request asks for, or Vertex's refusal of it. */
function check(body: unknown, model: string, spec: VertexModel): GoogleError | Asked {
  const fields = object(body);
  if (!fields) return invalidArgument('Invalid JSON payload received. Expected an object.');
  const unknown = Object.keys(fields).find((name) => name !== 'instances' && name !== 'parameters');
  if (unknown !== undefined) return unknownField(unknown);
  const parameters = checkParameters(fields.parameters, spec);
  if ('code' in parameters) return parameters;
  const texts = checkInstances(fields.instances, model, spec);
  if (!Array.isArray(texts)) return texts;
  const longest = Math.max(...texts.map(textTokens));
  if (!parameters.autoTruncate && longest > MAX_TEXT_TOKENS)
    return invalidArgument(
      `Unable to submit request because the input token count is ${longest} but the model supports up to ${MAX_TEXT_TOKENS}. Reduce the input token count and try again.`,
    );
  const total = texts.reduce((sum, text) => sum + Math.min(textTokens(text), MAX_TEXT_TOKENS), 0);
  if (total > MAX_REQUEST_TOKENS)
    return invalidArgument(
      `Unable to submit request because the input token count is ${total} but the request supports up to ${MAX_REQUEST_TOKENS}.`,
    );
  return { texts, ...parameters };
}

/** A truncated text is embedded as its first 2048 tokens (8192 characters at 4 a token). */
function prediction(text: string, dimensions: number) {
  const truncated = textTokens(text) > MAX_TEXT_TOKENS;
  const kept = truncated ? text.slice(0, MAX_TEXT_TOKENS * 4) : text;
  return {
    embeddings: {
      statistics: { truncated, token_count: textTokens(kept) },
      values: embeddingOf(kept, dimensions),
    },
  };
}

export const vertexPredictApi: SimApi = {
  name: 'vertex-predict',
  matches: (method, path) => method === 'POST' && VERTEX_PATH.test(path),
  async handle(context, exchange) {
    if (!requireGoogleToken(context, exchange)) return;
    const [, project = '', location = '', rawModel = ''] = VERTEX_PATH.exec(exchange.path) ?? [];
    const model = decodeURIComponent(rawModel);
    const spec = VERTEX_EMBEDDING_MODELS[model];
    if (!spec)
      return sendError(exchange.res, unknownModel(model, `projects/${project}/locations/${location}`));
    if (injectedFailure(context, exchange)) return;
    const asked = check(exchange.body as Body, model, spec);
    if ('code' in asked) return sendError(exchange.res, asked);
    const predictions = asked.texts.map((text) => prediction(text, asked.dimensions));
    const tokens = predictions.reduce((sum, item) => sum + item.embeddings.statistics.token_count, 0);
    exchange.reportUsage(simUsage(tokens));
    const billableCharacterCount = asked.texts.join('').replace(/\s/g, '').length;
    sendJson(exchange.res, 200, JSON.stringify({ predictions, metadata: { billableCharacterCount } }));
  },
};
