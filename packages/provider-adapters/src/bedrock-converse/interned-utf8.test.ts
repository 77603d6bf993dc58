import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InternedUtf8 } from './interned-utf8.ts';

const KNOWN = [':event-type', 'messageStop', 'contentBlockDelta', 'Grüße'];
const utf8 = new TextEncoder();

describe('interned UTF-8 decoding', () => {
  const interned = new InternedUtf8(KNOWN);

  test('a known string is the same string, from the table', () => {
    for (const text of KNOWN) assert.equal(interned.decode(utf8.encode(text)), text);
    // A view into a larger buffer (as a frame's header is) is found too.
    const framed = utf8.encode('xx:event-typeyy').subarray(2, 13);
    assert.equal(interned.decode(framed), ':event-type');
  });

  test('anything else is decoded, even at the length of a known string', () => {
    const others = [
      'messageStart',
      'messageStoq',
      ':event-typf',
      'contentBlockDeltb',
      'Grüßf',
      '東京',
      '',
      'x'.repeat(500),
    ];
    for (const text of others) assert.equal(interned.decode(utf8.encode(text)), text);
  });

  test('invalid UTF-8 is replaced as TextDecoder replaces it', () => {
    const invalid = Uint8Array.from([0x6d, 0xc3, 0x28, 0xff, 0x65, 0x73, 0x73, 0x61, 0x67, 0x65, 0x53]);
    assert.equal(interned.decode(invalid), new TextDecoder().decode(invalid));
  });
});
