/**
 * The embeddings request as the door reads it: `input` in its four shapes checked and made a
 * list, `dimensions` checked against the model, the prompt estimated for the reservation and
 * the rate limits (embeddings produce no output tokens).
 */
import type { EmbeddingInput, EmbeddingsRequest } from '@app/provider-adapters';
import type { EmbeddingLimits, RoutePlan } from '../../contracts.ts';
import { gatewayErrors } from '../../errors.ts';
import { CHARS_PER_TOKEN } from '../../pipeline/estimate.ts';
import type { EmbeddingsRequestBody } from './request-schema.ts';

const SHAPES =
  "'input' must be a non-empty string, an array of non-empty strings, an array of token ids (integers from 0), or an array of non-empty token-id arrays.";

function invalid(reason: string, param: string) {
  return gatewayErrors.create('invalid_request', { reason }, { param });
}

const isTokenId = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;

function isTokenArray(value: unknown): value is number[] {
  return Array.isArray(value) && value.length > 0 && value.every(isTokenId);
}

/** `input` as a list of texts or token arrays, or a 400 naming the accepted shapes. */
export function inputsOf(input: unknown): EmbeddingInput[] {
  if (typeof input === 'string') {
    if (input === '') throw invalid(SHAPES, 'input');
    return [input];
  }
  if (!Array.isArray(input) || input.length === 0) throw invalid(SHAPES, 'input');
  if (input.every((item) => typeof item === 'string')) {
    const empty = input.findIndex((item) => item === '');
    if (empty >= 0) throw invalid(`'input[${empty}]' is an empty string. ${SHAPES}`, `input[${empty}]`);
    return input;
  }
  if (input.every(isTokenId)) return [input as number[]];
  const bad = input.findIndex((item) => !isTokenArray(item));
  if (bad < 0) return input as number[][];
  throw invalid(SHAPES, `input[${bad}]`);
}

/** `256, 512 or 1024`, `1 to 1536`, or `1024 only`. */
export function dimensionsText(limits: EmbeddingLimits): string {
  const values = limits.dimensionValues;
  if (values !== undefined)
    return values.length === 1
      ? `${values[0]} only`
      : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
  const min = limits.minDimensions;
  return min === undefined ? `${limits.dimensions} only` : `${min} to ${limits.dimensions}`;
}

function dimensionsAllowed(limits: EmbeddingLimits, asked: number): boolean {
  if (asked === limits.dimensions) return true;
  if (limits.dimensionValues !== undefined) return limits.dimensionValues.includes(asked);
  return limits.minDimensions !== undefined && asked >= limits.minDimensions && asked <= limits.dimensions;
}

/**
 * The dimensions to ask upstream: none for the model's full length (a model that cannot shorten
 * refuses the field even then), the asked number otherwise, or a 400 naming what the model has.
 */
function dimensionsOf(
  plan: RoutePlan,
  limits: EmbeddingLimits,
  asked: number | undefined,
): number | undefined {
  if (asked === undefined || asked === limits.dimensions) return undefined;
  if (dimensionsAllowed(limits, asked)) return asked;
  throw invalid(
    `'dimensions' is ${asked}; ${plan.model} gives vectors of ${dimensionsText(limits)} dimensions.`,
    'dimensions',
  );
}

function checkLimits(plan: RoutePlan, limits: EmbeddingLimits, inputs: readonly EmbeddingInput[]): void {
  if (inputs.length > limits.maxInputs)
    throw invalid(
      `'input' holds ${inputs.length} items; ${plan.model} takes at most ${limits.maxInputs} a request.`,
      'input',
    );
  const long = inputs.findIndex((input) => typeof input !== 'string' && input.length > limits.maxInputTokens);
  if (long >= 0)
    throw invalid(
      `'input[${long}]' is ${inputs[long]?.length} tokens; ${plan.model} takes at most ${limits.maxInputTokens} an input.`,
      `input[${long}]`,
    );
}

/** The request for the adapters, checked against the model the plan names. */
export function embeddingsRequest(plan: RoutePlan, body: EmbeddingsRequestBody): EmbeddingsRequest {
  const limits = plan.embedding;
  // A plan of kind `embedding` always has its limits (catalog.ts); this guards the type.
  if (limits === undefined) throw new Error(`${plan.model} has no embedding limits`);
  const inputs = inputsOf(body.input);
  checkLimits(plan, limits, inputs);
  const dimensions = dimensionsOf(plan, limits, body.dimensions);
  return {
    inputs,
    encoding: body.encoding_format ?? 'float',
    ...(dimensions === undefined ? {} : { dimensions }),
    ...(body.user === undefined ? {} : { user: body.user }),
  };
}

/** Input tokens to reserve and rate-limit for: four characters a token, token ids as they are. */
export function estimateInputTokens(inputs: readonly EmbeddingInput[]): number {
  let tokens = 0;
  for (const input of inputs)
    tokens += typeof input === 'string' ? Math.ceil(input.length / CHARS_PER_TOKEN) : input.length;
  return tokens;
}
