/**
 * The Gemini Developer API (`generativelanguage.googleapis.com/v1beta`): the shared
 * generateContent codec, the model in the path, and flex as the body's `serviceTier`. The key
 * (`x-goog-api-key`) is the signer's to add.
 */
import type { BuildInput, ProviderAdapter, UpstreamHttpRequest } from '../adapter.ts';
import type { EndpointParams, OfferProfile } from '../model/profile.ts';
import { geminiEmbeddings } from './embeddings.ts';
import {
  createGeminiStreamTranslator,
  GEMINI_API,
  type GeminiDialect,
  generateContentCall,
  geminiTokenCounter,
  mapGeminiError,
  parseGenerateContent,
} from '../wire/gemini/index.ts';

/** The Developer API fetches public https URLs itself; `gs://` is Vertex's. */
const DIALECT: GeminiDialect = { fileUriSchemes: ['https'], searchExcludeDomains: false };

/** `:generateContent`, or `:streamGenerateContent?alt=sse` (without `alt` Google streams a JSON array). */
export function generateContentMethod(stream: boolean): string {
  return stream ? ':streamGenerateContent?alt=sse' : ':generateContent';
}

/** The Developer API's model resource URL, to which a method (`:generateContent`) is appended. */
function modelUrl(endpoint: EndpointParams, offer: OfferProfile): string {
  return `${endpoint.baseUrl}/models/${encodeURIComponent(offer.upstreamModel)}`;
}

function buildRequest(input: BuildInput): UpstreamHttpRequest {
  const { body, stream } = generateContentCall(input, DIALECT);
  if (input.tier === 'flex') body.serviceTier = 'flex';
  return {
    method: 'POST',
    url: `${modelUrl(input.endpoint, input.offer)}${generateContentMethod(stream)}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
}

export const geminiAdapter: ProviderAdapter = {
  id: 'gemini',
  wireApi: GEMINI_API,
  buildRequest,
  parseResponse: parseGenerateContent,
  createStreamTranslator: createGeminiStreamTranslator,
  mapError: mapGeminiError,
  embeddings: geminiEmbeddings,
};

/** The Developer API's own counter of a Gemini body (`:countTokens`), for Gemini clients. */
export const geminiApiTokenCounter = geminiTokenCounter(modelUrl, 'developer');
