import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseDecoder } from './sse.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

test('decodes events split at every byte boundary, CRLF and multi-line data', () => {
  const wire = 'event: a\r\ndata: one\r\ndata: two\r\n\r\n: comment\n\ndata:{"x":"é"}\n\ndata: last';
  const whole = bytes(wire);
  const expected = [
    { event: 'a', data: 'one\ntwo' },
    { event: undefined, data: '{"x":"é"}' },
    { event: undefined, data: 'last' },
  ];
  for (let split = 1; split < whole.length; split++) {
    const decoder = new SseDecoder();
    const events = [
      ...decoder.push(whole.subarray(0, split)),
      ...decoder.push(whole.subarray(split)),
      ...decoder.end(),
    ];
    assert.deepEqual(events, expected, `split at ${split}`);
  }
});

test('a lone CR ends a line; a CRLF split across pushes is one line end', () => {
  const decoder = new SseDecoder();
  assert.deepEqual(decoder.push(bytes('data: a\r\rdata: b\r')), [{ event: undefined, data: 'a' }]);
  assert.deepEqual(decoder.push(bytes('\n')), []);
  assert.deepEqual(decoder.push(bytes('\n')), [{ event: undefined, data: 'b' }]);
});
