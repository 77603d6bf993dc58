import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { buildCorpus } from '../../../../bench/compression/corpus.ts';
import { forEachChunk, MAX_CHUNK_CHARS, MAX_PIECE_CHARS } from './chunks.ts';
import { contentKey, V8_HASHED_CHARS } from './keys.ts';
import { boundedCount, tokenizerFor } from './tokenizers.ts';

const o200k = (await import('gpt-tokenizer/encoding/o200k_base')).countTokens;
const claude = (await import('@anthropic-ai/tokenizer')).getTokenizer();
/** The engines themselves, each text whole: what chunked counting must add up to. */
const whole = {
  o200k: (text: string) => o200k(text, { disallowedSpecial: new Set<string>() }),
  claude: (text: string) => claude.encode(text.normalize('NFKC'), 'all').length,
};

function chunks(text: string): string[] {
  const out: string[] = [];
  forEachChunk(text, (chunk) => out.push(chunk));
  return out;
}

test('chunks cover the text exactly once, in order, none longer than its limit', () => {
  const texts = [
    '',
    'short',
    'abcdefghij'.repeat((3 * MAX_CHUNK_CHARS) / 10),
    `x${' '.repeat(5000)}`,
    `x${'\n'.repeat(5000)}y`,
    'word '.repeat(20_000),
    '. '.repeat(20_000),
    `${'😀'.repeat(3000)} ${'é'.repeat(700)}`,
  ];
  for (const text of texts) {
    const parts = chunks(text);
    assert.equal(parts.join(''), text);
    for (const part of parts) assert.ok(part.length <= MAX_CHUNK_CHARS + 1, `${part.length}`);
    // No cut splits a surrogate pair.
    for (const part of parts) assert.ok(part.isWellFormed());
  }
});

test('a long run of white space is counted in slices; its last character stays with the next word', () => {
  const parts = chunks(`x${' '.repeat(2 * MAX_PIECE_CHARS + 10)}y`);
  assert.deepEqual(
    parts.map((part) => part.length),
    [1, MAX_PIECE_CHARS, MAX_PIECE_CHARS, 9, 2],
  );
  assert.equal(parts.at(-1), ' y');
  assert.deepEqual(
    chunks(`x${'\n'.repeat(600)}`).map((part) => part.length),
    [1, 256, 256, 88],
  );
});

test('texts without long runs count exactly as whole, however they are chunked (corpus and generated)', () => {
  const corpus: string[] = [];
  for (const conversation of buildCorpus())
    for (const turn of conversation.request.turns)
      for (const part of turn.content) {
        if (part.type === 'text') corpus.push(part.text);
        if (part.type === 'tool_result')
          for (const item of part.content) if (item.type === 'text') corpus.push(item.text);
      }
  const joined = corpus.join('\n');
  assert.ok(joined.length > 10 * MAX_CHUNK_CHARS, `${joined.length}`);
  for (const count of Object.values(whole)) assert.equal(boundedCount(joined, count), count(joined));

  const unit = fc.constantFrom(
    'word',
    'Été',
    '42',
    ' ',
    '\n',
    '  ',
    '\t',
    '.',
    "'s",
    '\r\n',
    '😀',
    '{"a": 1}',
    '-->',
  );
  fc.assert(
    fc.property(fc.array(unit, { minLength: 4000, maxLength: 9000 }), (units) => {
      const text = units.join('');
      if (chunks(text).length < 2) return;
      for (const count of Object.values(whole)) assert.equal(boundedCount(text, count), count(text));
    }),
    { numRuns: 20 },
  );
});

test('long white-space runs are counted within a few tokens of the engine', async () => {
  for (const vendor of ['openai', 'anthropic']) {
    const tokenizer = await tokenizerFor(vendor);
    const text = `x${' '.repeat(4096)}y`;
    const exact = vendor === 'openai' ? whole.o200k(text) : whole.claude(text);
    const counted = tokenizer.count(text);
    assert.ok(Math.abs(counted - exact) <= 16, `${vendor}: ${counted} against ${exact}`);
  }
});

test('contentKey: long texts of one length get distinct keys; equal texts the same key', () => {
  const a = `${'r'.repeat(V8_HASHED_CHARS)}a`;
  const b = `${'r'.repeat(V8_HASHED_CHARS)}b`;
  assert.notEqual(contentKey(a), contentKey(b));
  assert.equal(contentKey(a), contentKey(`${'r'.repeat(V8_HASHED_CHARS)}${'a'}`));
  assert.ok(contentKey(a).length < 100);
  assert.equal(contentKey('short'), 'short');
});
