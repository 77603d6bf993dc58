/**
 * The Gemini Developer API (`generativelanguage.googleapis.com/v1beta`): the shared
 * generateContent codec, the model in the path, and flex as the body's `serviceTier`. The key
 * (`x-goog-api-key`) is the signer's to add.
 */
import type { BuildInput, ProviderAdapter, UpstreamHttpRequest } from '../adapter.ts';
import {
  createGeminiStreamTranslator,
  encodeGenerateContent,
  type GeminiDialect,
  mapGeminiError,
  parseGenerateContent,
} from '../wire/gemini/index.ts';

/** The Developer API fetches public https URLs itself; `gs://` is Vertex's. */
const DIALECT: GeminiDialect = { fileUriSchemes: ['https'], searchExcludeDomains: false };

/** `:generateContent`, or `:streamGenerateContent?alt=sse` (without `alt` Google streams a JSON array). */
export function generateContentMethod(stream: boolean): string {
  return stream ? ':streamGenerateContent?alt=sse' : ':generateContent';
}

function buildRequest(input: BuildInput): UpstreamHttpRequest {
  const body = encodeGenerateContent(input, DIALECT);
  if (input.tier === 'flex') body.serviceTier = 'flex';
  const model = encodeURIComponent(input.offer.upstreamModel);
  return {
    method: 'POST',
    url: `${input.endpoint.baseUrl}/models/${model}${generateContentMethod(input.request.stream)}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
}

export const geminiAdapter: ProviderAdapter = {
  id: 'gemini',
  wireApi: undefined,
  buildRequest,
  parseResponse: (body) => parseGenerateContent(body),
  createStreamTranslator: () => createGeminiStreamTranslator(),
  mapError: mapGeminiError,
};
