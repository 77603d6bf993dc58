/**
 * Gemini on Vertex AI: the same generateContent codec as the Developer API under a project
 * and location path, with flex asked for by header rather than in the body. The OAuth token
 * is the signer's to add.
 */
import {
  AdapterRequestError,
  type BuildInput,
  type ProviderAdapter,
  type UpstreamHttpRequest,
} from '../adapter.ts';
import { generateContentMethod, geminiAdapter } from '../gemini/index.ts';
import type { EndpointParams, OfferProfile } from '../model/profile.ts';
import { vertexGeminiEmbeddings } from './embeddings.ts';
import { vertexModelUrl } from './model-url.ts';
import { type GeminiDialect, generateContentCall, geminiTokenCounter } from '../wire/gemini/index.ts';

/** Vertex reads Cloud Storage objects and public https URLs. */
const DIALECT: GeminiDialect = { fileUriSchemes: ['gs', 'https'], searchExcludeDomains: true };
/** Flex PayGo is served on the global endpoint only. */
const FLEX_LOCATION = 'global';

/** The model's resource URL under the project and location, to which a method is appended. */
const modelUrl = (endpoint: EndpointParams, offer: OfferProfile) =>
  vertexModelUrl(endpoint, offer.upstreamModel);

function buildRequest(input: BuildInput): UpstreamHttpRequest {
  const url = modelUrl(input.endpoint, input.offer);
  if (input.tier === 'flex' && input.endpoint.region !== FLEX_LOCATION)
    throw new AdapterRequestError(`Flex is served only on the ${FLEX_LOCATION} location on Vertex AI.`);
  const { body, stream } = generateContentCall(input, DIALECT);
  // Provisioned throughput is still used first when the project has it; flex covers the rest.
  const tier: Record<string, string> =
    input.tier === 'flex' ? { 'X-Vertex-AI-LLM-Shared-Request-Type': 'flex' } : {};
  return {
    method: 'POST',
    url: `${url}${generateContentMethod(stream)}`,
    headers: { 'content-type': 'application/json', ...tier },
    body: JSON.stringify(body),
  };
}

export const vertexGeminiAdapter: ProviderAdapter = {
  ...geminiAdapter,
  id: 'vertex-gemini',
  buildRequest,
  embeddings: vertexGeminiEmbeddings,
};

/** Vertex's own counter of a Gemini body (`:countTokens`), for Gemini clients. */
export const vertexGeminiTokenCounter = geminiTokenCounter(modelUrl, 'vertex');
