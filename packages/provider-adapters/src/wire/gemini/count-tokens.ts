/**
 * `:countTokens` both ways. A client asks with `{contents}` (the Developer API), with
 * `{contents, systemInstruction, tools, generationConfig}` (Vertex), or with
 * `{generateContentRequest}` (the Developer API, for a whole request); the answer is
 * `{totalTokens}`. Both Gemini services count for free, so their adapters carry a counter.
 */
import {
  AdapterParseError,
  AdapterRequestError,
  type TokenCounter,
  type UpstreamHttpRequest,
} from '../../adapter.ts';
import { isJsonObject, type JsonObject, parseJson } from '../../json.ts';
import type { EndpointParams, OfferProfile } from '../../model/profile.ts';
import { GeminiDecodeError } from './decode-error.ts';
import { GEMINI_API } from './types.ts';

/** The parts of a generateContent body that count as prompt. */
const PROMPT_FIELDS = ['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig'];

function promptOf(body: JsonObject): JsonObject {
  return Object.fromEntries(
    PROMPT_FIELDS.filter((key) => body[key] !== undefined).map((key) => [key, body[key]]),
  );
}

/**
 * What a countTokens request asks to count, as a generateContent body (which the front door
 * decodes, estimates, or forwards to a counter): the whole `generateContentRequest` when there
 * is one (Google then ignores `contents`), else the request's own prompt fields.
 */
export function decodeCountTokensRequest(body: JsonObject): JsonObject {
  if (body.generateContentRequest !== undefined) {
    if (!isJsonObject(body.generateContentRequest))
      throw new GeminiDecodeError('generateContentRequest must be a generateContent request.');
    return promptOf(body.generateContentRequest);
  }
  return promptOf(body);
}

/** The answer a Gemini client reads. */
export function encodeCountTokensResponse(totalTokens: number): JsonObject {
  return { totalTokens };
}

/** Google omits zero-valued fields in JSON, so an answer without `totalTokens` counted nothing. */
export function parseCountTokens(body: string): number {
  const json = parseJson(body);
  const count = isJsonObject(json) && json.error === undefined ? (json.totalTokens ?? 0) : undefined;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0)
    throw new AdapterParseError('the provider answered with something that is not a token count.');
  return count;
}

/**
 * The counter of one service: the Developer API takes the prompt as a `generateContentRequest`
 * naming the model; Vertex takes the prompt fields themselves.
 */
export function geminiTokenCounter(
  modelUrl: (endpoint: EndpointParams, offer: OfferProfile) => string,
  service: 'developer' | 'vertex',
): TokenCounter {
  return {
    buildRequest({ source, offer, endpoint }): UpstreamHttpRequest {
      if (source.api !== GEMINI_API)
        throw new AdapterRequestError('token counting takes a Gemini generateContent body.');
      const prompt = promptOf(source.body);
      // Vertex's CountTokensRequest has no toolConfig field, and refuses fields it does not know.
      const { toolConfig: _toolConfig, ...vertexPrompt } = prompt;
      const body =
        service === 'developer'
          ? { generateContentRequest: { model: `models/${offer.upstreamModel}`, ...prompt } }
          : vertexPrompt;
      return {
        method: 'POST',
        url: `${modelUrl(endpoint, offer)}:countTokens`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      };
    },
    parseResponse: parseCountTokens,
  };
}
