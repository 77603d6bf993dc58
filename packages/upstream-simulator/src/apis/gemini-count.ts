/**
 * Gemini's token counters, `:countTokens` both ways: the Developer API's takes `{contents}` or a
 * whole `{generateContentRequest}` naming its model; Vertex's takes the prompt fields themselves.
 * Both count as the simulated reply counts its prompt, so a count equals the `promptTokenCount`
 * of the same request answered; the credentials are those of generateContent.
 */
import { contentText, promptTokens } from '../reply.ts';
import { sendJson } from '../respond.ts';
import {
  checkFields,
  GEMINI_API_FIELDS,
  GEMINI_MODELS,
  type GoogleError,
  invalidArgument,
} from './gemini-checks.ts';
import { simRequestOf } from './gemini-reply.ts';
import { BAD_KEY, sendError, unknownModel } from './gemini.ts';
import { requireGoogleToken } from './google-token.ts';
import type { SimApi, SimExchange } from './types.ts';

type Body = Readonly<Record<string, unknown>>;

const GEMINI_COUNT_PATH = /^\/gemini\/v1beta\/models\/([^/:]+):countTokens$/;
const VERTEX_COUNT_PATH =
  /^\/vertex\/v1(?:beta1)?\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/google\/models\/([^/:]+):countTokens$/;

/** The fields of the Developer API's CountTokensRequest, and of the request it may wrap. */
const GEMINI_COUNT_FIELDS = new Set(['contents', 'generateContentRequest']);
const WRAPPED_FIELDS = new Set([...GEMINI_API_FIELDS, 'model']);
/** Vertex's CountTokensRequest: no toolConfig, safetySettings or tier. */
const VERTEX_COUNT_FIELDS = new Set(['contents', 'systemInstruction', 'tools', 'generationConfig', 'model']);

function object(value: unknown): Body | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Body) : undefined;
}

/** The prompt a Developer API count asks about, or why Google would refuse the request. */
function geminiPrompt(body: unknown, model: string): { prompt: Body } | { error: GoogleError } {
  const fields = object(body);
  const wrapped = object(fields?.generateContentRequest);
  const refused = (error: GoogleError | undefined, prompt: Body) => (error ? { error } : { prompt });
  if (!fields || wrapped === undefined) return refused(checkFields(body, GEMINI_COUNT_FIELDS), fields ?? {});
  if (fields.contents !== undefined)
    return { error: invalidArgument('contents and generate_content_request cannot both be set.') };
  if (wrapped.model !== `models/${model}`)
    return { error: invalidArgument('* GenerateContentRequest.model: unexpected model name format\n') };
  return refused(checkFields(wrapped, WRAPPED_FIELDS), wrapped);
}

/** Google omits zero-valued fields, so an empty count says nothing but its total. */
function countBody(model: string, prompt: Body, vertex: boolean): string {
  const request = simRequestOf(model, prompt);
  const total = promptTokens(request);
  const details = total > 0 ? { promptTokensDetails: [{ modality: 'TEXT', tokenCount: total }] } : {};
  // Vertex bills by characters too, whitespace excluded.
  const characters = request.messages
    .map((message) => contentText(message.content).replace(/\s/g, ''))
    .join('').length;
  const billable = vertex && characters > 0 ? { totalBillableCharacters: characters } : {};
  return JSON.stringify({ totalTokens: total, ...billable, ...details });
}

export const geminiCountTokensApi: SimApi = {
  name: 'gemini-count-tokens',
  matches: (method, path) => method === 'POST' && GEMINI_COUNT_PATH.test(path),
  async handle(context, exchange: SimExchange) {
    const [, rawModel = ''] = GEMINI_COUNT_PATH.exec(exchange.path) ?? [];
    const header = exchange.req.headers['x-goog-api-key'];
    const key = typeof header === 'string' ? header : exchange.query.get('key');
    if (key !== context.credentials.geminiKey) return sendError(exchange.res, BAD_KEY);
    const model = decodeURIComponent(rawModel);
    if (!GEMINI_MODELS[model]) return sendError(exchange.res, unknownModel(model));
    const asked = geminiPrompt(exchange.body, model);
    if ('error' in asked) return sendError(exchange.res, asked.error);
    sendJson(exchange.res, 200, countBody(model, asked.prompt, false));
  },
};

export const vertexGeminiCountTokensApi: SimApi = {
  name: 'vertex-gemini-count-tokens',
  matches: (method, path) => method === 'POST' && VERTEX_COUNT_PATH.test(path),
  async handle(context, exchange: SimExchange) {
    if (!requireGoogleToken(context, exchange)) return;
    const [, project = '', location = '', rawModel = ''] = VERTEX_COUNT_PATH.exec(exchange.path) ?? [];
    const model = decodeURIComponent(rawModel);
    if (!GEMINI_MODELS[model])
      return sendError(exchange.res, unknownModel(model, `projects/${project}/locations/${location}`));
    const refused = checkFields(exchange.body, VERTEX_COUNT_FIELDS);
    if (refused) return sendError(exchange.res, refused);
    sendJson(exchange.res, 200, countBody(model, exchange.body as Body, true));
  },
};
