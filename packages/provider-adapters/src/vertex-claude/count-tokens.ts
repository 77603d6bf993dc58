/**
 * Claude's token counter on Vertex AI, `.../publishers/anthropic/models/count-tokens:rawPredict`:
 * the Messages body with the model named in it (unlike Vertex's Messages, which name it in the
 * path) and the API version in the body, as the official Vertex SDK sends it.
 */
import { AdapterRequestError, type TokenCounter } from '../adapter.ts';
import { messagesHeaders } from '../anthropic/index.ts';
import { NOT_COUNTED, parseTokenCount } from '../anthropic/count-tokens.ts';
import type { JsonObject } from '../json.ts';
import { ANTHROPIC_API } from '../wire/anthropic-messages/index.ts';
import { VERTEX_ANTHROPIC_VERSION, vertexSegment } from './request.ts';

export const vertexClaudeTokenCounter: TokenCounter = {
  buildRequest({ source, offer, endpoint }) {
    if (source.api !== ANTHROPIC_API)
      throw new AdapterRequestError('token counting takes an Anthropic Messages body.');
    const body: JsonObject = {
      ...source.body,
      anthropic_version: VERTEX_ANTHROPIC_VERSION,
      model: offer.upstreamModel,
    };
    for (const name of NOT_COUNTED) delete body[name];
    const path =
      `/projects/${vertexSegment('project', endpoint.project)}/locations/${vertexSegment('region', endpoint.region)}` +
      `/publishers/anthropic/models/count-tokens:rawPredict`;
    return {
      method: 'POST',
      url: `${endpoint.baseUrl}${path}`,
      headers: messagesHeaders(false, source.betas ?? []),
      body: JSON.stringify(body),
    };
  },
  parseResponse: parseTokenCount,
};
