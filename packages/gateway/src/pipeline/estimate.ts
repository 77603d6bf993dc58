/**
 * Token estimates where no upstream figure exists yet (a prompt before it is sent, output of a
 * stream cut short); their cost is pricing.ts's.
 */

/** Tokenizer-free estimates: about four characters per token. */
export const CHARS_PER_TOKEN = 4;

export function estimateOutputTokens(generatedChars: number): number {
  return Math.ceil(generatedChars / CHARS_PER_TOKEN);
}
