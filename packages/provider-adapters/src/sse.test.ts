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

test('field forms: no space after the colon, one space removed only, bare names, ignored fields', () => {
  const wire = [
    'event:a\ndata:x\n\n',
    'data:  two spaces\n\n',
    'data\n\n',
    'data:\ndata:\n\n',
    'id: 7\nretry: 10\nfoo: bar\ndata: kept\n\n',
    'event\ndata: y\n\n',
    ':data: a comment\n\n',
    'data : not data\n\n',
  ].join('');
  const whole = bytes(wire);
  const expected = [
    { event: 'a', data: 'x' },
    { event: undefined, data: ' two spaces' },
    { event: undefined, data: '' },
    { event: undefined, data: '\n' },
    { event: undefined, data: 'kept' },
    { event: '', data: 'y' },
  ];
  for (let split = 0; split <= whole.length; split++) {
    const decoder = new SseDecoder();
    const events = [
      ...decoder.push(whole.subarray(0, split)),
      ...decoder.push(whole.subarray(split)),
      ...decoder.end(),
    ];
    assert.deepEqual(events, expected, `split at ${split}`);
  }
});

test('multi-byte characters cut at every byte, one byte per push', () => {
  const text = 'Grüße 東京 🙂 ✓';
  const whole = bytes(`data: {"t":"${text}"}\n\ndata: ${text}\n\n`);
  const decoder = new SseDecoder();
  const events = [];
  for (let at = 0; at < whole.length; at++) events.push(...decoder.push(whole.subarray(at, at + 1)));
  events.push(...decoder.end());
  assert.deepEqual(events, [
    { event: undefined, data: `{"t":"${text}"}` },
    { event: undefined, data: text },
  ]);
});
