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
import { encodeGenerateContent, type GeminiDialect } from '../wire/gemini/index.ts';

/** Vertex reads Cloud Storage objects and public https URLs. */
const DIALECT: GeminiDialect = { fileUriSchemes: ['gs', 'https'], searchExcludeDomains: true };
/** Flex PayGo is served on the global endpoint only. */
const FLEX_LOCATION = 'global';

function buildRequest(input: BuildInput): UpstreamHttpRequest {
  const { project, region } = input.endpoint;
  // A configuration mistake, not the client's: it must surface as the gateway's own error.
  if (!project || !region) throw new Error('A vertex-gemini endpoint needs a project and a region.');
  if (input.tier === 'flex' && region !== FLEX_LOCATION)
    throw new AdapterRequestError(`Flex is served only on the ${FLEX_LOCATION} location on Vertex AI.`);
  const body = encodeGenerateContent(input, DIALECT);
  const path = [
    'projects',
    encodeURIComponent(project),
    'locations',
    encodeURIComponent(region),
    'publishers/google/models',
    encodeURIComponent(input.offer.upstreamModel),
  ].join('/');
  // Provisioned throughput is still used first when the project has it; flex covers the rest.
  const tier: Record<string, string> =
    input.tier === 'flex' ? { 'X-Vertex-AI-LLM-Shared-Request-Type': 'flex' } : {};
  return {
    method: 'POST',
    url: `${input.endpoint.baseUrl}/${path}${generateContentMethod(input.request.stream)}`,
    headers: { 'content-type': 'application/json', ...tier },
    body: JSON.stringify(body),
  };
}

export const vertexGeminiAdapter: ProviderAdapter = {
  ...geminiAdapter,
  id: 'vertex-gemini',
  buildRequest,
};
