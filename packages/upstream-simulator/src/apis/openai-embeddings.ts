/**
 * `POST /embeddings` as OpenAI (`/openai/v1`, Bearer key), Azure OpenAI (`/azure/openai/v1` with
 * the deployment as `model`, or `/azure/openai/deployments/{d}/embeddings?api-version`; `api-key`)
 * and OpenAI-compatible servers (`/v1`, any model, no key) answer it, refusing what OpenAI
 * refuses: unknown fields, an empty or mixed `input`, more than 2048 inputs, an input over 8192
 * tokens or 300,000 in all, `dimensions` beyond the model's or on a model that cannot shorten.
 */
import { embeddingOf, textTokens, tokenIdsText } from '../embeddings.ts';
import { behaviourFor } from '../faults.ts';
import { fail, sendJson } from '../respond.ts';
import { deployedModel } from './azure-resource.ts';
import { bearer, invalid } from './openai.ts';
import { OPENAI_EMBEDDING_MODELS } from './openai-models.ts';
import type { SimApi, SimContext, SimExchange } from './types.ts';

const FIELDS = new Set(['input', 'model', 'dimensions', 'encoding_format', 'user']);
const MAX_INPUTS = 2048;
const MAX_INPUT_TOKENS = 8192;
const MAX_REQUEST_TOKENS = 300_000;
/** What an OpenAI-compatible server's unknown models embed to. */
const COMPATIBLE_MODEL = { dimensions: 1536, shortens: true };

type Refusal = { status: number; message: string; param: string | null; code: string | null };
type Input = { text: string; tokens: number };

const invalidInput = (message: string): Refusal => ({ status: 400, message, param: 'input', code: null });

function isTokenIds(value: unknown): value is number[] {
  return (
    Array.isArray(value) && value.length > 0 && value.every((item) => Number.isInteger(item) && item >= 0)
  );
}

/** The inputs as texts to embed with their token counts, or OpenAI's refusal of `input`. */
function inputsOf(input: unknown): Input[] | Refusal {
  if (input === undefined) return invalidInput("'input' is a required property");
  const items: unknown = typeof input === 'string' || isTokenIds(input) ? [input] : input;
  const texts = Array.isArray(items) && items.length > 0 && items.every((item) => typeof item === 'string');
  const ids = Array.isArray(items) && items.length > 0 && items.every(isTokenIds);
  if (!Array.isArray(items) || (!texts && !ids) || (items as unknown[]).includes(''))
    return invalidInput(
      "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.",
    );
  if (items.length > MAX_INPUTS)
    return invalidInput(
      `'$.input' is too long: at most ${MAX_INPUTS} inputs can be embedded in one request.`,
    );
  return (items as (string | number[])[]).map((item) =>
    typeof item === 'string'
      ? { text: item, tokens: textTokens(item) }
      : { text: tokenIdsText(item), tokens: item.length },
  );
}

function tokenRefusal(inputs: readonly Input[]): Refusal | undefined {
  const longest = Math.max(...inputs.map((input) => input.tokens));
  if (longest > MAX_INPUT_TOKENS)
    return invalidInput(
      `This model's maximum context length is ${MAX_INPUT_TOKENS} tokens, however you requested ${longest} tokens (${longest} in your prompt; 0 for the completion). Please reduce your prompt; or completion length.`,
    );
  const total = inputs.reduce((sum, input) => sum + input.tokens, 0);
  if (total > MAX_REQUEST_TOKENS)
    return invalidInput(`Requested ${total} tokens, max ${MAX_REQUEST_TOKENS} tokens per request`);
  return undefined;
}

function dimensionsOf(
  body: Record<string, unknown>,
  model: { dimensions: number; shortens: boolean },
): number | Refusal {
  const asked = body.dimensions;
  if (asked === undefined) return model.dimensions;
  const refusal = (message: string): Refusal => ({ status: 400, message, param: 'dimensions', code: null });
  if (!model.shortens) return refusal('This model does not support specifying dimensions.');
  if (typeof asked !== 'number' || !Number.isInteger(asked) || asked < 1 || asked > model.dimensions)
    return refusal(`'dimensions' must be an integer between 1 and ${model.dimensions} for this model.`);
  return asked;
}

interface Served {
  readonly model: string;
  readonly spec: { dimensions: number; shortens: boolean };
}

type Checked = { readonly inputs: Input[]; readonly dimensions: number; readonly base64: boolean };

/** What the request asks for, or OpenAI's refusal of it. */
function check(body: Record<string, unknown>, served: Served): Checked | Refusal {
  const unknown = Object.keys(body).find((name) => !FIELDS.has(name));
  if (unknown !== undefined)
    return {
      status: 400,
      message: `Unrecognized request argument supplied: ${unknown}`,
      param: null,
      code: null,
    };
  const format = body.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64')
    return {
      status: 400,
      message: "'encoding_format' must be 'float' or 'base64'.",
      param: 'encoding_format',
      code: null,
    };
  const inputs = inputsOf(body.input);
  if (!Array.isArray(inputs)) return inputs;
  const dimensions = dimensionsOf(body, served.spec);
  if (typeof dimensions !== 'number') return dimensions;
  return tokenRefusal(inputs) ?? { inputs, dimensions, base64: format === 'base64' };
}

/** The answer to an authenticated request for `served`. */
function embed(context: SimContext, exchange: SimExchange, served: Served): void {
  const behaviour = behaviourFor(exchange.req.headers, {}, context.state.options.behaviour ?? {});
  if (behaviour.failStatus !== undefined) return fail(exchange.res, behaviour);
  const checked = check(exchange.body as Record<string, unknown>, served);
  if ('status' in checked)
    return invalid(exchange, checked.status, checked.message, checked.code, checked.param ?? undefined);
  const data = checked.inputs.map((input, index) => {
    const vector = embeddingOf(input.text, checked.dimensions);
    return { object: 'embedding', index, embedding: checked.base64 ? float32Base64(vector) : vector };
  });
  const tokens = checked.inputs.reduce((sum, input) => sum + input.tokens, 0);
  exchange.reportUsage(simUsage(tokens));
  const usage = { prompt_tokens: tokens, total_tokens: tokens };
  sendJson(exchange.res, 200, JSON.stringify({ object: 'list', data, model: served.model, usage }));
}

/** Little-endian float32 bytes in base64, as OpenAI sends `encoding_format: "base64"`. */
export function float32Base64(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}

/** The usage noted on `received`, in the simulator's OpenAI terms: all prompt. */
export function simUsage(tokens: number) {
  return {
    prompt_tokens: tokens,
    completion_tokens: 0,
    total_tokens: tokens,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

function isObject(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body);
}

function modelNotFound(exchange: SimExchange, model: string): void {
  const message = `The model \`${model}\` does not exist or you do not have access to it.`;
  invalid(exchange, 404, message, 'model_not_found');
}

export const openAIEmbeddingsApi: SimApi = {
  name: 'openai-embeddings',
  matches: (method, path) =>
    method === 'POST' && (path === '/openai/v1/embeddings' || path === '/v1/embeddings'),
  async handle(context, exchange) {
    const compatible = exchange.path === '/v1/embeddings';
    if (!compatible && bearer(exchange) !== context.credentials.openaiKey)
      return invalid(exchange, 401, 'Incorrect API key provided.', 'invalid_api_key');
    if (!isObject(exchange.body))
      return invalid(exchange, 400, 'We could not parse the JSON body of your request.', null);
    const model = exchange.body.model;
    if (typeof model !== 'string') return invalid(exchange, 400, 'you must provide a model parameter', null);
    const spec = OPENAI_EMBEDDING_MODELS[model] ?? (compatible ? COMPATIBLE_MODEL : undefined);
    if (spec === undefined) return modelNotFound(exchange, model);
    embed(context, exchange, { model, spec });
  },
};

const CLASSIC = /^\/azure\/openai\/deployments\/([^/]+)\/embeddings$/;

export const azureEmbeddingsApi: SimApi = {
  name: 'azure-openai-embeddings',
  matches: (method, path) =>
    method === 'POST' && (path === '/azure/openai/v1/embeddings' || CLASSIC.test(path)),
  async handle(context, exchange) {
    const key = exchange.req.headers['api-key'];
    if (key !== undefined && exchange.req.headers.authorization !== undefined)
      return invalid(exchange, 400, 'Send either api-key or Authorization, not both.', 'invalid_request');
    if (key !== context.credentials.azureKey) {
      const message = 'Access denied due to invalid subscription key or wrong API endpoint.';
      return sendJson(exchange.res, 401, JSON.stringify({ error: { code: '401', message } }));
    }
    const classic = CLASSIC.exec(exchange.path);
    if (classic && !exchange.query.get('api-version'))
      return invalid(exchange, 404, 'Resource not found', '404');
    if (!isObject(exchange.body))
      return invalid(exchange, 400, 'We could not parse the JSON body of your request.', null);
    const deployment = classic ? decodeURIComponent(classic[1] ?? '') : String(exchange.body.model);
    const model = deployedModel(context, exchange, deployment);
    if (model === undefined) return;
    const spec = OPENAI_EMBEDDING_MODELS[model];
    if (spec === undefined)
      return invalid(
        exchange,
        400,
        `The embeddings operation does not work with the specified model, ${model}.`,
        'OperationNotSupported',
      );
    // Classic: the path names the deployment; a `model` in the body is taken and ignored.
    embed(context, exchange, { model, spec });
  },
};
