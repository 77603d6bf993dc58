/**
 * Prompt compression on the internal model of a call, the same for every front door. Pure: a
 * request, a level and a budget in; the new request and its token counts before and after out.
 * `compact` is meaning-preserving (compact.ts), `compressed` adds lossy cuts to a budget
 * (cut.ts); neither edits the cached prefix (frozen.ts), thinking, images or tool definitions.
 */
import type { ModelRequest } from '@app/provider-adapters';
import { compactRequest } from './compact.ts';
import { requestTokens } from './count.ts';
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
}

export interface Compressed {
  readonly request: ModelRequest;
  /** The tokenizer's count of the prompt as sent by the client, and as compressed. */
  readonly before: number;
  readonly after: number;
}

export function compress(input: CompressInput): Compressed {
  const { request, level, tokenizer } = input;
  const frozen = frozenPrefix(request);
  const before = requestTokens(request, tokenizer);
  let out = compactRequest(request, frozen);
  if (level === 'compressed')
    out = cutToBudget(out, {
      budget:
        input.targetRatio === undefined
          ? input.budget
          : Math.min(input.budget, Math.floor(before * input.targetRatio)),
      tokenizer,
      frozen,
      keepLastTurns: input.keepLastTurns ?? KEEP_LAST_TURNS,
    });
  return { request: out, before, after: requestTokens(out, tokenizer) };
}
