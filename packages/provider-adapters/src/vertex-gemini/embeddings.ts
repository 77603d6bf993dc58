/**
 * Vertex AI's text embeddings: `publishers/google/models/{model}:predict` with one instance per
 * text. gemini-embedding-001 takes one instance a call (Google's documented limit), the older
 * text-embedding models 250. `autoTruncate: false` makes an over-long text an error, as OpenAI's
 * API answers it, rather than a vector of its first 2048 tokens. Each prediction carries its
 * token count (`statistics.token_count`).
 */
import { AdapterParseError, type EmbeddingsTranslator, type UpstreamHttpRequest } from '../adapter.ts';
import {
  checkCount,
  checkRequest,
  boundedChunks,
  numberVector,
  replyObject,
  textInputs,
  sumReported,
  usageOf,
} from '../embeddings/batches.ts';
import { isJsonObject } from '../json.ts';
import type { EmbeddingsReply, EmbeddingsRequest, EmbeddingsTarget } from '../model/embeddings.ts';
import { vertexModelUrl } from './model-url.ts';

/** Models taking a single instance per predict call; the others take VERTEX_MAX_INPUTS. */
const SINGLE_INSTANCE = /^gemini-embedding/;
export const VERTEX_MAX_INPUTS = 250;
/** The text-embedding models refuse a request of more tokens than this in all. */
export const VERTEX_MAX_REQUEST_TOKENS = 20_000;

function maxInputsPerCall(upstreamModel: string): number {
  return SINGLE_INSTANCE.test(upstreamModel) ? 1 : VERTEX_MAX_INPUTS;
}

function buildRequests(request: EmbeddingsRequest, target: EmbeddingsTarget): UpstreamHttpRequest[] {
  checkRequest(request);
  const texts = textInputs(request, 'Vertex AI');
  const url = `${vertexModelUrl(target.endpoint, target.upstreamModel)}:predict`;
  const parameters = {
    autoTruncate: false,
    ...(request.dimensions === undefined ? {} : { outputDimensionality: request.dimensions }),
  };
  const runs = boundedChunks(texts, maxInputsPerCall(target.upstreamModel), VERTEX_MAX_REQUEST_TOKENS);
  return runs.map((run) => ({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ instances: run.map((content) => ({ content })), parameters }),
  }));
}

function prediction(item: unknown, index: number): { vector: number[]; tokens: number | undefined } {
  const embeddings = isJsonObject(item) ? item.embeddings : undefined;
  if (!isJsonObject(embeddings)) throw new AdapterParseError(`predictions[${index}] has no embeddings.`);
  const statistics = isJsonObject(embeddings.statistics) ? embeddings.statistics : {};
  const tokens = typeof statistics.token_count === 'number' ? statistics.token_count : undefined;
  return { vector: numberVector(embeddings.values, `predictions[${index}].embeddings.values`), tokens };
}

export const vertexGeminiEmbeddings: EmbeddingsTranslator = {
  maxInputsPerCall,
  buildRequests,
  parseResponses(replies, request) {
    const vectors: number[][] = [];
    const counts: (number | undefined)[] = [];
    for (const reply of replies) {
      const body = replyObject(reply, 'predict');
      if (!Array.isArray(body.predictions))
        throw new AdapterParseError('The predict answer has no predictions.');
      body.predictions.forEach((item: unknown, index) => {
        const answer = prediction(item, index);
        vectors.push(answer.vector);
        counts.push(answer.tokens);
      });
    }
    checkCount(vectors, request);
    return { vectors, usage: usageOf(counts, request) };
  },
  reportedInputTokens: (replies) => sumReported(replies, predictionTokens),
};

/** The token counts of one answer's predictions, summed; undefined when one has none. */
function predictionTokens(reply: EmbeddingsReply): number | undefined {
  const body = replyObject(reply, 'predict');
  if (!Array.isArray(body.predictions)) throw new AdapterParseError('The predict answer has no predictions.');
  let tokens = 0;
  for (const [index, item] of body.predictions.entries()) {
    const count = prediction(item, index).tokens;
    if (count === undefined) return undefined;
    tokens += count;
  }
  return tokens;
}
