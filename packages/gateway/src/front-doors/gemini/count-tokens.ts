/**
 * POST /{version}/models/{model}:countTokens through the pipeline's token counting
 * (pipeline/count-tokens.ts): the prompt the request names, read as a generateContent body, is
 * counted by the selected upstream's counter of Gemini's API (both Gemini services have one),
 * else estimated; the answer is `{totalTokens}`.
 */
import { AdapterRequestError, gemini, type JsonObject, type ModelRequest } from '@app/provider-adapters';
import { gatewayErrors } from '../../errors.ts';
import type { Routed, TokenCounting } from '../../pipeline/front-door.ts';
import { bodyOf, estimatePromptTokens, needsOf, routingHeaders } from './inputs.ts';
import { modelCallOfUrl } from './path.ts';

/** What the request asks to count, as a generateContent body (a 400 for a malformed one). */
function promptOf(body: JsonObject): JsonObject {
  try {
    return gemini.decodeCountTokensRequest(body);
  } catch (error) {
    if (!(error instanceof AdapterRequestError)) throw error;
    throw gatewayErrors.create('invalid_request', { reason: error.message });
  }
}

export const geminiCount: TokenCounting<unknown> = {
  decode: (request, body): Routed => {
    const prompt = promptOf(bodyOf(body));
    let decoded: ModelRequest | undefined;
    return {
      model: modelCallOfUrl(request.url).model,
      inputs: routingHeaders(request.headers, prompt),
      needs: needsOf(prompt),
      source: {
        source: { api: gemini.GEMINI_API, body: prompt },
        decode: () => (decoded ??= gemini.decodeGenerateContentRequest(prompt, { stream: false })),
      },
    };
  },
  // The body counted is the prompt (compressed when compressed), not the countTokens request.
  estimate: (prompt) => estimatePromptTokens(bodyOf(prompt)),
  answer: (tokens) => gemini.encodeCountTokensResponse(tokens),
};
