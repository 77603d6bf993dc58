/** Claude on Google Vertex AI: the Messages format, addressed and versioned the Vertex way. */
import type { ProviderAdapter } from '../adapter.ts';
import { parseMessagesResponse } from '../anthropic/index.ts';
import { ANTHROPIC_API, createMessagesStreamTranslator } from '../wire/anthropic-messages/index.ts';
import { mapVertexClaudeError } from './errors.ts';
import { vertexClaudeTokenCounter } from './count-tokens.ts';
import { buildVertexClaudeRequest } from './request.ts';

export const vertexClaudeAdapter: ProviderAdapter = {
  id: 'vertex-claude',
  wireApi: ANTHROPIC_API,
  buildRequest: buildVertexClaudeRequest,
  parseResponse: parseMessagesResponse,
  createStreamTranslator: createMessagesStreamTranslator,
  mapError: mapVertexClaudeError,
  countTokens: vertexClaudeTokenCounter,
};

export { VERTEX_ANTHROPIC_VERSION } from './request.ts';
export { mapVertexClaudeError } from './errors.ts';
