/**
 * Prompt compression on the internal model of a call, the same for every front door. Pure: a
 * request, a level and a budget in; the new request and its token counts before and after out.
 * `compact` is meaning-preserving (compact.ts), `compressed` adds lossy cuts to a budget
 * (cut.ts); neither edits the cached prefix (frozen.ts), thinking, images or tool definitions.
 */
import type { ModelRequest } from '@app/provider-adapters';
import { compactRequest } from './compact.ts';
import { requestChars, requestTokens } from './count.ts';
import { cutToBudget } from './cut.ts';
import { frozenPrefix } from './frozen.ts';
import type { Tokenizer } from './tokenizers.ts';

export { compressedSource } from './source.ts';
export { type Tokenizer, tokenizerFor } from './tokenizers.ts';

export type CompressionLevel = 'compact' | 'compressed';

/** The question being asked and the turn it answers stay whole. */
export const KEEP_LAST_TURNS = 2;

export interface CompressInput {
  readonly request: ModelRequest;
  readonly level: CompressionLevel;
  /** `compressed` only: the most prompt tokens the result may have. */
  readonly budget: number;
  /** `compressed` only: also at most this share (0-1] of the prompt's tokens as sent. */
  readonly targetRatio?: number;
  readonly tokenizer: Tokenizer;
  readonly keepLastTurns?: number;
  /** The work one request may take (unset: unbounded, for tests of the stages). */
  readonly limits?: WorkLimits;
}

/** A hard bound on the work of one request: every stage is linear, but in a 16 MiB body. */
export interface WorkLimits {
  /** Work units (characters of text times the tokenizer's cost); past it nothing is compressed. */
  readonly workBudget: number;
  /** Milliseconds, checked between stages. */
  readonly deadlineMs: number;
}

export interface Compressed {
  readonly request: ModelRequest;
  /** The tokenizer's count of the prompt as sent by the client, and as compressed. */
  readonly before: number;
  readonly after: number;
}

/** Compression gave up: the request goes as sent, and the client is told why. */
export interface Fallback {
  readonly fallback: 'budget' | 'deadline';
}

class DeadlinePassed extends Error {}

/**
 * Work units of a request: its characters of text, times what its tokenizer costs per character
 * relative to o200k (Anthropic's is about three times slower on every shape measured).
 */
const COST_PER_CHAR: Readonly<Record<Tokenizer['name'], number>> = { o200k: 1, gemini: 1, claude: 3 };

function workOf(input: CompressInput): number {
  return requestChars(input.request) * COST_PER_CHAR[input.tokenizer.name];
}

/** Without limits (tests of the stages, benchmarks) it always compresses. */
export function compress(input: CompressInput & { readonly limits?: undefined }): Compressed;
export function compress(input: CompressInput): Compressed | Fallback;
export function compress(input: CompressInput): Compressed | Fallback {
  const { limits } = input;
  if (limits && workOf(input) > limits.workBudget) return { fallback: 'budget' };
  const deadline = limits ? performance.now() + limits.deadlineMs : Infinity;
  const check = () => {
    if (performance.now() > deadline) throw new DeadlinePassed();
  };
  try {
    return stages(input, check);
  } catch (error) {
    if (error instanceof DeadlinePassed) return { fallback: 'deadline' };
    throw error;
  }
}

function stages(input: CompressInput, check: () => void): Compressed {
  const { request, level, tokenizer } = input;
  const frozen = frozenPrefix(request);
  const before = requestTokens(request, tokenizer, check);
  check();
  let out = compactRequest(request, frozen);
  check();
  if (level === 'compressed')
    out = cutToBudget(out, {
      budget:
        input.targetRatio === undefined
          ? input.budget
          : Math.min(input.budget, Math.floor(before * input.targetRatio)),
      tokenizer,
      frozen,
      keepLastTurns: input.keepLastTurns ?? KEEP_LAST_TURNS,
      check,
    });
  check();
  return { request: out, before, after: requestTokens(out, tokenizer, check) };
}
