import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { boundedCallId, packToolCallId, unpackToolCallId, wireCallIds } from './tool-call-id.ts';

/** What Anthropic's schema allows in a `tool_use.id`. */
const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/;
/** A Gemini-style signature: standard base64 with `+`, `/` and padding. */
const GEMINI_SIGNATURE = 'Cs+/9w==';

describe('tool call id packing', () => {
  test('a base64 signature with +, / and = packs into [a-zA-Z0-9_-] and unpacks byte for byte', () => {
    const packed = packToolCallId('call_1', GEMINI_SIGNATURE);
    assert.match(packed, ANTHROPIC_ID);
    assert.equal(packed, 'call_1__sig_bCs-_9w');
    assert.deepEqual(unpackToolCallId(packed), { id: 'call_1', signature: GEMINI_SIGNATURE });
  });

  test('a long canonical signature costs no more characters than itself', () => {
    const signature = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37) % 256)).toString('base64');
    const packed = packToolCallId('c', signature);
    assert.match(packed, ANTHROPIC_ID);
    assert.ok(packed.length <= 'c__sig_b'.length + signature.length);
    assert.equal(unpackToolCallId(packed).signature, signature);
  });

  test('a signature that is not canonical base64 travels as text and comes back unchanged', () => {
    for (const signature of ['sig-1', 'SIG1', 'a b+c/==', 'Cs+/9w', 'ü~sig~x', '_-']) {
      const packed = packToolCallId('toolu_01', signature);
      assert.match(packed, ANTHROPIC_ID, signature);
      assert.deepEqual(unpackToolCallId(packed), { id: 'toolu_01', signature }, signature);
    }
  });

  test('ids without a signature, and other providers ids, round-trip byte for byte', () => {
    assert.equal(packToolCallId('call_abc', undefined), 'call_abc');
    assert.equal(packToolCallId('call_abc', ''), 'call_abc');
    for (const id of [
      'call_abc',
      'toolu_01A09q90qw90lq917835lq9',
      'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
      'fc_68a1-2b',
      'x__sig_',
      'x__sig_q',
      'x__sig_bAB=',
      'x__sig_b!!',
      'x__sig_tA',
      'a.b:c',
    ])
      assert.deepEqual(unpackToolCallId(id), { id }, id);
  });

  test('ids issued with the earlier ~sig~ packing still unpack', () => {
    assert.deepEqual(unpackToolCallId('call_1~sig~Cs+/9w=='), { id: 'call_1', signature: 'Cs+/9w==' });
  });

  test('docs/gateway/providers.md describes the packing the code does', () => {
    const doc = readFileSync(new URL('../../../../docs/gateway/providers.md', import.meta.url), 'utf8');
    assert.ok(doc.includes('`<call id>__sig_b<signature>`'));
    assert.ok(packToolCallId('<call id>', GEMINI_SIGNATURE).startsWith('<call id>__sig_b'));
    assert.ok(doc.includes('`__sig_t`'));
    assert.ok(packToolCallId('c', 'not base64').startsWith('c__sig_t'));
    assert.ok(doc.includes('(`~sig~`)'));
  });

  test('ids for an API with a length limit: packed, and a digest of themselves past the limit', () => {
    const long = 'run_shell_command_1795867749231_0__more_than_forty';
    assert.equal(boundedCallId('call_1', 40), 'call_1');
    const digest = boundedCallId(long, 40);
    assert.match(digest, /^call_[A-Za-z0-9_-]{35}$/);
    assert.equal(boundedCallId(long, 40), digest, 'the same on every turn');
    assert.notEqual(boundedCallId(`${long}x`, 40), digest);
    const ids = wireCallIds(
      [
        {
          role: 'assistant',
          content: [
            { type: 'tool_call', id: 'call_1', name: 'f', arguments: '{}', signature: GEMINI_SIGNATURE },
            { type: 'tool_call', id: long, name: 'f', arguments: '{}' },
          ],
        },
      ],
      40,
    );
    assert.deepEqual(
      [...ids],
      [
        ['call_1', 'call_1__sig_bCs-_9w'],
        [long, digest],
      ],
    );
  });
});
