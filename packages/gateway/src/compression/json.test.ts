/**
 * The minifier validates JSON itself instead of calling JSON.parse, so it is held to
 * JSON.parse's verdict here: on documents fast-check generates (every kind of string, including
 * escaped lone surrogates and control characters), laid out in several ways, and on the same
 * documents after random edits that make most of them invalid in every way a byte can. Runs and
 * seed are fixed, as for every fuzz test here: `FUZZ_RUNS=100000 FUZZ_SEED=7` for a longer search.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { fuzzParameters } from '@app/http-kit/fuzz.ts';
import { jsonBlockAt, minifyJson } from './json.ts';

/**
 * The answer by JSON.parse: the document's tokens without the whitespace between them. Only a
 * text whose first character after JSON whitespace opens an object or array is a candidate.
 */
function reference(text: string): string | undefined {
  const trimmed = text.trim();
  if (!/^[ \t\n\r]*[[{]/.test(text) || !trimmed.isWellFormed()) return undefined;
  try {
    JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  // Correct for valid JSON only: strings whole, whitespace between tokens dropped.
  return trimmed.replace(/"(?:[^"\\]|\\.)*"|[ \t\n\r]+/g, (match) => (match.startsWith('"') ? match : ''));
}

const container = fc.oneof(
  fc.array(fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 }), { maxLength: 6 }),
  fc.dictionary(
    fc.string({ unit: 'binary', maxLength: 8 }),
    fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 }),
    {
      maxKeys: 6,
    },
  ),
);

const layout = fc.constantFrom<string | number | undefined>(undefined, 1, 2, '\t', ' \r\n ');

/** Compact JSON with `space` around every structural character outside strings. */
function spread(json: string, space: string): string {
  let out = '';
  let inString = false;
  for (let index = 0; index < json.length; index += 1) {
    const char = json[index] as string;
    if (inString && char === '\\') {
      out += char + json[(index += 1)];
      continue;
    }
    if (char === '"') inString = !inString;
    out += !inString && ',:[]{}'.includes(char) ? `${space}${char}${space}` : char;
  }
  return out;
}

const document = fc
  .tuple(container, layout)
  .map(([value, indent]) =>
    typeof indent === 'string' && indent.includes('\r')
      ? spread(JSON.stringify(value), indent)
      : JSON.stringify(value, null, indent),
  );

/** Characters that change what a JSON document is, and some that only look like whitespace. */
const ALPHABET = [
  ...'{}[],:"\\ \t\n\r0123456789.eE+-truefalsnu/bx',
  '\x00',
  '\x01',
  // Form feed and vertical tab: trim() removes them, JSON does not take them as whitespace.
  '\x0b',
  '\x0c',
  '\x1f',
  '\x7f',
  'é',
  '✔',
  '😀',
  '\ud800',
  '\u00a0',
  '\u2028',
  '\ufeff',
];

const edit = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('insert', 'delete', 'replace'),
  char: fc.constantFrom(...ALPHABET),
});

function applyEdits(text: string, edits: readonly { at: number; kind: string; char: string }[]): string {
  let out = text;
  for (const { at, kind, char } of edits) {
    const index = at % (out.length + 1);
    if (kind === 'insert') out = out.slice(0, index) + char + out.slice(index);
    else if (kind === 'delete') out = out.slice(0, index) + out.slice(index + 1);
    else out = out.slice(0, index) + char + out.slice(index + 1);
  }
  return out;
}

test('valid documents in any layout are minified exactly as JSON.parse would tokenise them', () => {
  fc.assert(
    fc.property(document, (text) => {
      const expected = reference(text);
      assert.notEqual(expected, undefined);
      assert.equal(minifyJson(text), expected);
    }),
    fuzzParameters(process.env, 1500),
  );
});

test('after random edits, a document is minified if and only if JSON.parse accepts it', () => {
  const { numRuns: runs } = fuzzParameters(process.env, 4000);
  let accepted = 0;
  fc.assert(
    fc.property(document, fc.array(edit, { minLength: 1, maxLength: 3 }), (text, edits) => {
      const edited = applyEdits(text, edits);
      const expected = reference(edited);
      if (expected !== undefined) accepted += 1;
      assert.equal(minifyJson(edited), expected, JSON.stringify(edited));
    }),
    fuzzParameters(process.env, 4000),
  );
  // Both verdicts must be exercised for the property to mean anything.
  assert.ok(
    accepted > 0.1 * runs && accepted < 0.9 * runs,
    `${accepted} of ${runs} edited documents accepted`,
  );
});

test('a block that starts a line is found where JSON.parse says a document ends', () => {
  fc.assert(
    fc.property(document, fc.array(edit, { maxLength: 2 }), (text, edits) => {
      const block = applyEdits(text, edits);
      const prose = `Records:\n${block}\nEnd.`;
      const found = jsonBlockAt(prose, 'Records:\n'.length).block;
      if (found !== undefined) {
        const slice = prose.slice('Records:\n'.length, found.end);
        assert.ok(slice.includes('\n'), 'a block runs over a line end');
        assert.equal(found.minified, reference(slice));
      } else if (/^[[{]/.test(block) && block.trimEnd().includes('\n') && reference(block) !== undefined)
        assert.fail(`a valid block was missed: ${JSON.stringify(block)}`);
    }),
    fuzzParameters(process.env, 2000),
  );
});

test('a text with a lone surrogate is left as sent: it has no UTF-8 form to minify', () => {
  assert.equal(minifyJson('{"a": "\ud800"}'), undefined);
  // Escaped, the same surrogate is plain ASCII and the document is minified.
  assert.equal(minifyJson('{"a": "\\ud800"}'), '{"a":"\\ud800"}');
  assert.equal(minifyJson('{ "emoji": "😀", "é": 1 }'), '{"emoji":"😀","é":1}');
});

test('each corner of the grammar gets the verdict of JSON.parse', () => {
  const cases = [
    ...[
      '[1,\x0c2]',
      '{}\x0b',
      '\x0c{}',
      '["\\u123x"]',
      '[-+1]',
      '[0]',
      '[-0]',
      '[01]',
      '[-01]',
      '[-]',
      '[1.]',
      '[.5]',
      '[1.5]',
      '[1e]',
      '[1e+]',
      '[1E+5]',
      '[0.0e-0]',
    ],
    ...['[+1]', '[0x1]', '[Infinity]', '[NaN]', '[1 2]', '[1,]', '[,1]', '[]]', '[[]', '[1}'],
    ...['[tru]', '[truee]', '[true]', '[false]', '[fals]', '[null]', '[nul]', '[nulL]'],
    ...['{"a":1,}', '{,}', '{"a"}', '{"a":}', '{1:2}', '{"a":1 "b":2}', '{"a":1}}', '{"a" : 1 }'],
    ...['["\x01"]', '["\t"]', '["a\nb"]', '["\x7f"]', '["\\u12"]', '["\\u12G4"]', '["\\uABcd"]'],
    ...['["\\a"]', '["\\/"]', '["\\"]', '["\\\\"]', '["a" "b"]', '["\\\\\\""]', '["'],
  ];
  for (const text of cases) assert.equal(minifyJson(text), reference(text), text);
});

test('a block ends at its own closing bracket, past brackets and escaped quotes in its strings', () => {
  const prose = 'Records:\n{"a": "\\"}]", "b": [\n1]}\nEnd.';
  assert.deepEqual(jsonBlockAt(prose, 'Records:\n'.length).block, {
    end: prose.length - '\nEnd.'.length,
    minified: '{"a":"\\"}]","b":[1]}',
  });
});
