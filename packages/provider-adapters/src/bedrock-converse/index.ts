import type { ProviderAdapter } from '../adapter.ts';
import { bedrockEmbeddings } from './embeddings.ts';
import { mapBedrockError } from './errors.ts';
import { buildConverseRequest } from './request.ts';
import { parseConverseResponse } from './response.ts';
import { createConverseStreamTranslator } from './stream.ts';

/**
 * Claude (and other models) on AWS Bedrock through the Converse API. No client API speaks
 * Converse, so every answer is translated. SigV4 signing is the transport's: this builds the
 * unsigned request.
 */
export const bedrockConverseAdapter: ProviderAdapter = {
  id: 'bedrock-converse',
  wireApi: undefined,
  buildRequest: buildConverseRequest,
  parseResponse: (body) => parseConverseResponse(body),
  createStreamTranslator: () => createConverseStreamTranslator(),
  mapError: mapBedrockError,
  embeddings: bedrockEmbeddings,
};
