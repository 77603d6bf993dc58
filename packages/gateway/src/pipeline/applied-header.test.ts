import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDictionary, Token } from 'structured-headers';
import { formatApplied, formatCompression, formatIgnored } from './applied-header.ts';

test('formatApplied renders the decisions.md example in its fixed key order', () => {
  const header = formatApplied({
    model: 'claude-sonnet-4-5-20250929',
    provider: 'cloud_b',
    options: { compression: 'off', tier: 'flex', effort: 'high' },
  });
  assert.equal(
    header,
    'model="claude-sonnet-4-5-20250929", provider=cloud_b, effort=high, tier=flex, compression=off',
  );
});

test('formatApplied leaves out keys that were not decided', () => {
  assert.equal(formatApplied({ model: 'gpt-5.5-2026-04-23' }), 'model="gpt-5.5-2026-04-23"');
  assert.equal(formatApplied({ options: { effort: 'none' } }), 'effort=none');
  assert.equal(formatApplied({}), '');
});

test('formatApplied escapes quotes and non-ASCII in the model string so the header stays parseable', () => {
  const header = formatApplied({ model: 'we"ird\\é' });
  const parsed = parseDictionary(header);
  assert.equal(parsed.get('model')?.[0], 'we"ird\\\\u00e9');
});

test('formatIgnored renders dimension=value entries as tokens', () => {
  assert.equal(formatIgnored(['effort=ultra', 'tier=turbo']), 'effort=ultra, tier=turbo');
});

test('formatIgnored returns undefined when nothing was ignored', () => {
  assert.equal(formatIgnored([]), undefined);
});

test('formatIgnored quotes values that are not valid tokens', () => {
  const header = formatIgnored(['effort=high, low', 'tier=9x']);
  assert.equal(header, 'effort="high, low", tier="9x"');
  const parsed = parseDictionary(header ?? '');
  assert.equal(parsed.get('effort')?.[0], 'high, low');
  assert.ok(!(parsed.get('tier')?.[0] instanceof Token));
});

test('X-Gateway-Compression is an RFC 8941 dictionary of the two integer counts', () => {
  const value = formatCompression({ before: 120_000, after: 95_310 });
  assert.equal(value, 'input-tokens-before=120000, input-tokens-after=95310');
  assert.deepEqual(
    [...parseDictionary(value)].map(([key, [item]]) => [key, item]),
    [
      ['input-tokens-before', 120_000],
      ['input-tokens-after', 95_310],
    ],
  );
});
