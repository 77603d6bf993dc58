/**
 * The Gemini Developer API's `models/{model}:batchEmbedContents`: one EmbedContentRequest per
 * text, at most 100 a call (Google answers a larger batch with a 400), each naming the model
 * again. Token ids are refused (batches.ts). `usageMetadata.promptTokenCount` is the count
 * where the answer has one; without it the count is estimated.
 */
import { AdapterParseError, type EmbeddingsTranslator, type UpstreamHttpRequest } from '../adapter.ts';
import {
  checkCount,
  checkRequest,
  chunks,
  numberVector,
  replyObject,
  textInputs,
  sumReported,
  usageOf,
} from '../embeddings/batches.ts';
import { isJsonObject, type JsonObject } from '../json.ts';
import type { EmbeddingsRequest, EmbeddingsTarget } from '../model/embeddings.ts';

export const GEMINI_MAX_INPUTS = 100;

function buildRequests(request: EmbeddingsRequest, target: EmbeddingsTarget): UpstreamHttpRequest[] {
  checkRequest(request);
  const texts = textInputs(request, 'Gemini');
  const model = `models/${target.upstreamModel}`;
  const size = request.dimensions === undefined ? {} : { outputDimensionality: request.dimensions };
  const url = `${target.endpoint.baseUrl}/models/${encodeURIComponent(target.upstreamModel)}:batchEmbedContents`;
  return chunks(texts, GEMINI_MAX_INPUTS).map((run) => ({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      requests: run.map((text) => ({ model, content: { parts: [{ text }] }, ...size })),
    }),
  }));
}

export const geminiEmbeddings: EmbeddingsTranslator = {
  maxInputsPerCall: () => GEMINI_MAX_INPUTS,
  buildRequests,
  parseResponses(replies, request) {
    const vectors: number[][] = [];
    const counts: (number | undefined)[] = [];
    for (const reply of replies) {
      const body = replyObject(reply, 'batchEmbedContents');
      if (!Array.isArray(body.embeddings)) throw new AdapterParseError('The answer has no embeddings.');
      body.embeddings.forEach((item: unknown, index) => {
        const values = isJsonObject(item) ? item.values : undefined;
        vectors.push(numberVector(values, `embeddings[${index}].values`));
      });
      counts.push(promptTokenCount(body));
    }
    checkCount(vectors, request);
    return { vectors, usage: usageOf(counts, request) };
  },
  reportedInputTokens: (replies) =>
    sumReported(replies, (reply) => promptTokenCount(replyObject(reply, 'batchEmbedContents'))),
};

function promptTokenCount(body: JsonObject): number | undefined {
  const count = isJsonObject(body.usageMetadata) ? body.usageMetadata.promptTokenCount : undefined;
  return typeof count === 'number' ? count : undefined;
}
