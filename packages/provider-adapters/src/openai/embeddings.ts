/**
 * OpenAI's `POST /v1/embeddings`, also served by Azure OpenAI and by OpenAI-compatible servers.
 * Up to 2048 inputs a call; an input is a string or an array of token ids, but one call takes
 * one kind only, so a batch mixing them is split where the kind changes. Vectors are asked for
 * as base64 (a third of the bytes of JSON numbers) and decoded here.
 */
import { AdapterParseError, type EmbeddingsTranslator, type UpstreamHttpRequest } from '../adapter.ts';
import {
  checkCount,
  checkRequest,
  boundedChunks,
  numberVector,
  replyObject,
  sumReported,
  usageOf,
} from '../embeddings/batches.ts';
import { decodeFloat32Base64 } from '../embeddings/openai-encoding.ts';
import { isJsonObject, type JsonObject } from '../json.ts';
import type { EmbeddingInput, EmbeddingsRequest, EmbeddingsTarget } from '../model/embeddings.ts';

export const OPENAI_MAX_INPUTS = 2048;
/** OpenAI refuses a request whose inputs add up to more tokens than this. */
export const OPENAI_MAX_REQUEST_TOKENS = 300_000;

/** Where a call goes and which `model` it names (Azure: the deployment). */
export interface EmbeddingsRoute {
  url(target: EmbeddingsTarget): string;
  model(target: EmbeddingsTarget): string;
}

/** Consecutive inputs of one kind (texts, or token arrays), within OpenAI's per-request limits. */
function runs(inputs: readonly EmbeddingInput[], size: number): EmbeddingInput[][] {
  const byKind: EmbeddingInput[][] = [];
  for (const input of inputs) {
    const last = byKind.at(-1);
    if (last !== undefined && typeof last[0] === typeof input) last.push(input);
    else byKind.push([input]);
  }
  return byKind.flatMap((run) => boundedChunks(run, size, OPENAI_MAX_REQUEST_TOKENS));
}

function vectorOf(item: unknown, index: number): { index: number; vector: number[] } {
  if (!isJsonObject(item)) throw new AdapterParseError(`data[${index}] is not an embedding.`);
  const at = typeof item.index === 'number' ? item.index : index;
  if (typeof item.embedding === 'string') {
    const vector = decodeFloat32Base64(item.embedding);
    if (vector === undefined) throw new AdapterParseError(`data[${index}].embedding is not base64 float32.`);
    return { index: at, vector };
  }
  return { index: at, vector: numberVector(item.embedding, `data[${index}].embedding`) };
}

export function openAIEmbeddings(route: EmbeddingsRoute): EmbeddingsTranslator {
  return {
    maxInputsPerCall: () => OPENAI_MAX_INPUTS,
    buildRequests(request: EmbeddingsRequest, target: EmbeddingsTarget): UpstreamHttpRequest[] {
      checkRequest(request);
      const model = route.model(target);
      const extra = {
        ...(request.dimensions === undefined ? {} : { dimensions: request.dimensions }),
        ...(request.user === undefined ? {} : { user: request.user }),
      };
      return runs(request.inputs, OPENAI_MAX_INPUTS).map((input) => ({
        method: 'POST',
        url: route.url(target),
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, input, encoding_format: 'base64', ...extra }),
      }));
    },
    parseResponses(replies, request) {
      const vectors: number[][] = [];
      const counts: (number | undefined)[] = [];
      for (const reply of replies) {
        const body = replyObject(reply, 'embeddings');
        if (!Array.isArray(body.data)) throw new AdapterParseError('The embeddings answer has no data.');
        const items = body.data.map(vectorOf).sort((a, b) => a.index - b.index);
        for (const item of items) vectors.push(item.vector);
        counts.push(promptTokens(body));
      }
      checkCount(vectors, request);
      return { vectors, usage: usageOf(counts, request) };
    },
    reportedInputTokens: (replies) =>
      sumReported(replies, (reply) => promptTokens(replyObject(reply, 'embeddings'))),
  };
}

function promptTokens(body: JsonObject): number | undefined {
  const usage = isJsonObject(body.usage) ? body.usage.prompt_tokens : undefined;
  return typeof usage === 'number' ? usage : undefined;
}

/** OpenAI itself and OpenAI-compatible servers: `<baseUrl>/embeddings`, the offer's model. */
export const openAIBaseEmbeddings = openAIEmbeddings({
  url: (target) => `${target.endpoint.baseUrl}/embeddings`,
  model: (target) => target.upstreamModel,
});
