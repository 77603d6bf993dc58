/**
 * Embeddings on Bedrock through InvokeModel (`/model/{modelId}/invoke`), whose body is the
 * model's own format: Titan Text Embeddings V2 takes one `inputText` a call (dimensions 256,
 * 512 or 1024); Cohere Embed v3 takes up to 96 `texts`. SigV4 is the transport's. Titan counts
 * tokens in the body; Cohere only in the `X-Amzn-Bedrock-Input-Token-Count` header, which
 * Bedrock sets on every InvokeModel answer.
 */
import {
  AdapterParseError,
  AdapterRequestError,
  type EmbeddingsTranslator,
  type UpstreamHttpRequest,
} from '../adapter.ts';
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
import { isJsonObject } from '../json.ts';
import type { EmbeddingsReply, EmbeddingsRequest, EmbeddingsTarget } from '../model/embeddings.ts';

export const TITAN_DIMENSIONS: readonly number[] = [256, 512, 1024];
export const COHERE_MAX_TEXTS = 96;
const TOKEN_COUNT_HEADER = 'x-amzn-bedrock-input-token-count';

type Family = 'titan' | 'cohere';

/** By the model id, which may carry an inference profile's geography prefix (`us.cohere...`). */
function familyOf(modelId: string): Family {
  if (modelId.includes('amazon.titan-embed-text-v2')) return 'titan';
  if (modelId.includes('cohere.embed-')) return 'cohere';
  throw new AdapterRequestError(`${modelId} is not an embeddings model this gateway speaks on Bedrock.`);
}

function maxInputsPerCall(modelId: string): number {
  return familyOf(modelId) === 'titan' ? 1 : COHERE_MAX_TEXTS;
}

function titanBody(text: string, dimensions: number | undefined): string {
  if (dimensions !== undefined && !TITAN_DIMENSIONS.includes(dimensions))
    throw new AdapterRequestError('dimensions must be 256, 512 or 1024 for Titan Text Embeddings V2.');
  return JSON.stringify({
    inputText: text,
    ...(dimensions === undefined ? {} : { dimensions }),
    normalize: true,
  });
}

/** Documents, as OpenAI's API (which has no input type) is mostly used: to index them. */
function cohereBody(texts: readonly string[], dimensions: number | undefined): string {
  if (dimensions !== undefined) throw new AdapterRequestError('Cohere Embed v3 does not take dimensions.');
  return JSON.stringify({ texts, input_type: 'search_document', truncate: 'NONE' });
}

function buildRequests(request: EmbeddingsRequest, target: EmbeddingsTarget): UpstreamHttpRequest[] {
  checkRequest(request);
  const family = familyOf(target.upstreamModel);
  const texts = textInputs(request, 'this Bedrock model');
  const url = `${target.endpoint.baseUrl}/model/${encodeURIComponent(target.upstreamModel)}/invoke`;
  const headers = { 'content-type': 'application/json', accept: 'application/json' };
  const bodies =
    family === 'titan'
      ? texts.map((text) => titanBody(text, request.dimensions))
      : chunks(texts, COHERE_MAX_TEXTS).map((run) => cohereBody(run, request.dimensions));
  return bodies.map((body) => ({ method: 'POST', url, headers, body }));
}

function headerCount(reply: EmbeddingsReply): number | undefined {
  const raw = reply.headers[TOKEN_COUNT_HEADER];
  const value = Number(Array.isArray(raw) ? raw[0] : raw);
  return raw !== undefined && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** The vectors of one answer, and its token count where it has one. */
function answerOf(reply: EmbeddingsReply): { vectors: number[][]; tokens: number | undefined } {
  const body = replyObject(reply, 'InvokeModel');
  if (body.embedding !== undefined) {
    const tokens =
      typeof body.inputTextTokenCount === 'number' ? body.inputTextTokenCount : headerCount(reply);
    return { vectors: [numberVector(body.embedding, 'embedding')], tokens };
  }
  // Cohere: `embeddings` is the list itself, or by type when `embedding_types` was sent.
  const list = isJsonObject(body.embeddings) ? body.embeddings.float : body.embeddings;
  if (!Array.isArray(list)) throw new AdapterParseError('The InvokeModel answer has no embeddings.');
  const vectors = list.map((item: unknown, index) => numberVector(item, `embeddings[${index}]`));
  return { vectors, tokens: headerCount(reply) };
}

export const bedrockEmbeddings: EmbeddingsTranslator = {
  maxInputsPerCall,
  buildRequests,
  parseResponses(replies, request) {
    const answers = replies.map(answerOf);
    const vectors = answers.flatMap((answer) => answer.vectors);
    checkCount(vectors, request);
    return {
      vectors,
      usage: usageOf(
        answers.map((answer) => answer.tokens),
        request,
      ),
    };
  },
  reportedInputTokens: (replies) => sumReported(replies, (reply) => answerOf(reply).tokens),
};
