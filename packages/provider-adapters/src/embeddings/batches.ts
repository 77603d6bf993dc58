/** What every embeddings translator shares: splitting a batch, text-only inputs, estimates. */
import { AdapterParseError, AdapterRequestError } from '../adapter.ts';
import { isJsonObject, type JsonObject, parseJson } from '../json.ts';
import { meters, METERS } from '../model/meters.ts';
import type {
  EmbeddingInput,
  EmbeddingsReply,
  EmbeddingsRequest,
  EmbeddingsUsage,
} from '../model/embeddings.ts';

/** `items` in runs of at most `size`, order kept. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const runs: T[][] = [];
  for (let start = 0; start < items.length; start += size) runs.push(items.slice(start, start + size));
  return runs;
}

/**
 * The most tokens an input can be, without the upstream's tokenizer: a text is at most one token
 * per UTF-8 byte (every tokenizer's pieces are at least a byte), plus two for the special tokens
 * a model may add; token ids are themselves.
 */
export function tokenBound(input: EmbeddingInput): number {
  return typeof input === 'string' ? Buffer.byteLength(input, 'utf8') + 2 : input.length;
}

/**
 * `items` in runs of at most `size` whose token bounds add up to at most `maxTokens`, so an
 * upstream's limit on a request's tokens is never hit by the batching; an input over the bound
 * alone goes alone (the upstream judges it). Order kept.
 */
export function boundedChunks<T extends EmbeddingInput>(
  items: readonly T[],
  size: number,
  maxTokens: number,
): T[][] {
  const runs: T[][] = [];
  let run: T[] = [];
  let tokens = 0;
  for (const item of items) {
    const bound = tokenBound(item);
    if (run.length > 0 && (run.length === size || tokens + bound > maxTokens)) {
      runs.push(run);
      run = [];
      tokens = 0;
    }
    run.push(item);
    tokens += bound;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/**
 * The inputs as texts. Token ids belong to one tokenizer (OpenAI's, for the models that take
 * them); no other provider can read them, and decoding them with OpenAI's tokenizer would embed
 * a text the client never meant for that model, so they are refused.
 */
export function textInputs(request: EmbeddingsRequest, provider: string): string[] {
  return request.inputs.map((input, index) => {
    if (typeof input === 'string') return input;
    throw new AdapterRequestError(
      `input[${index}] is an array of token ids; ${provider} embeds text only, so send the text itself.`,
    );
  });
}

/** Characters / 4, as the gateway estimates prompts an upstream did not count. */
export function estimateTokens(inputs: readonly EmbeddingInput[]): number {
  let tokens = 0;
  for (const input of inputs)
    tokens += typeof input === 'string' ? Math.ceil(input.length / 4) : input.length;
  return tokens;
}

/** A 2xx body that must be a JSON object. */
export function replyObject(reply: EmbeddingsReply, api: string): JsonObject {
  const parsed = parseJson(reply.body);
  if (!isJsonObject(parsed)) throw new AdapterParseError(`The ${api} answer is not a JSON object.`);
  return parsed;
}

/** A vector of numbers, or the parse error naming where it was expected. */
export function numberVector(value: unknown, where: string): number[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'number'))
    throw new AdapterParseError(`${where} is not an array of numbers.`);
  return value as number[];
}

/** Every input answered exactly once. */
export function checkCount(vectors: readonly unknown[], request: EmbeddingsRequest): void {
  if (vectors.length !== request.inputs.length)
    throw new AdapterParseError(
      `The upstream answered ${vectors.length} embeddings for ${request.inputs.length} inputs.`,
    );
}

/** At least one input, and `dimensions` a positive integer or absent. */
export function checkRequest(request: EmbeddingsRequest): void {
  if (request.inputs.length === 0) throw new AdapterRequestError('input must hold at least one item.');
  const { dimensions } = request;
  if (dimensions !== undefined && (!Number.isInteger(dimensions) || dimensions < 1))
    throw new AdapterRequestError('dimensions must be a positive integer.');
}

/** The counts `countOf` reads from `replies`, summed; undefined when one is missing or unreadable. */
export function sumReported(
  replies: readonly EmbeddingsReply[],
  countOf: (reply: EmbeddingsReply) => number | undefined,
): number | undefined {
  let tokens = 0;
  for (const reply of replies) {
    let count: number | undefined;
    try {
      count = countOf(reply);
    } catch (error) {
      if (error instanceof AdapterParseError) return undefined;
      throw error;
    }
    if (count === undefined) return undefined;
    tokens += count;
  }
  return tokens;
}

/** The counts the upstream reported, summed; estimated for the whole request if one is missing. */
export function usageOf(
  counts: readonly (number | undefined)[],
  request: EmbeddingsRequest,
): EmbeddingsUsage {
  let tokens = 0;
  let estimated = false;
  for (const count of counts) {
    if (count === undefined) {
      tokens = estimateTokens(request.inputs);
      estimated = true;
      break;
    }
    tokens += count;
  }
  return { meters: meters({ [METERS.input]: tokens }), inputTokens: tokens, estimated };
}
