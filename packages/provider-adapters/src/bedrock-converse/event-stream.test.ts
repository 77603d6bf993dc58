import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { CorruptFrameError, type DecodedFrame, EventStreamDecoder } from './event-stream.ts';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function frame(headers: Record<string, string>, payload: string): Uint8Array {
  const entries = Object.entries(headers).map(([name, value]) => [name, { type: 'string', value }] as const);
  return codec.encode({ headers: Object.fromEntries(entries), body: new TextEncoder().encode(payload) });
}

const FRAMES = [
  frame({ ':event-type': 'messageStart', ':message-type': 'event' }, '{"role":"assistant"}'),
  // Multi-byte characters in the payload and in a header value the decoder does not know.
  frame({ ':event-type': 'contentBlockDelta', 'x-note': 'Grüße 東京' }, '{"text":"Grüße 東京 🙂"}'),
  frame({ ':event-type': 'messageStop', ':message-type': 'event' }, '{"stopReason":"end_turn"}'),
];
const STREAM = new Uint8Array(Buffer.concat(FRAMES));
const TEXT = new TextDecoder();

interface Plain {
  readonly headers: Readonly<Record<string, string>>;
  readonly payload: string;
}

function plain(frame: DecodedFrame): Plain {
  return { headers: { ...frame.headers }, payload: TEXT.decode(frame.payload) };
}

/** What the smithy codec alone makes of each frame: the decoder must agree with it. */
const EXPECTED: Plain[] = FRAMES.map((bytes) => {
  const message = codec.decode(bytes);
  const headers = Object.fromEntries(
    Object.entries(message.headers).map(([name, header]) => [name, String(header.value)]),
  );
  return { headers, payload: TEXT.decode(message.body) };
});

/** Pushes `bytes` cut at `splits`, each piece in a buffer the caller then overwrites. */
function decodeAll(bytes: Uint8Array, splits: readonly number[]): Plain[] {
  const decoder = new EventStreamDecoder();
  const out: Plain[] = [];
  let start = 0;
  for (const end of [...splits, bytes.length]) {
    // The network's buffers (Buffers, whose slice() is a view) are reused once a push returns:
    // a partial frame must have been copied out of them.
    const piece = Buffer.from(bytes.subarray(start, end));
    decoder.append(piece);
    for (let frame = decoder.next(); frame !== undefined; frame = decoder.next()) out.push(plain(frame));
    piece.fill(0xaa);
    start = end;
  }
  assert.equal(decoder.pending, 0);
  return out;
}

describe('AWS event-stream decoder', () => {
  test('decodes as the smithy codec does, pushed whole', () => {
    assert.equal(EXPECTED[1]?.payload, '{"text":"Grüße 東京 🙂"}');
    assert.equal(EXPECTED[1]?.headers['x-note'], 'Grüße 東京');
    assert.deepEqual(decodeAll(STREAM, []), EXPECTED);
  });

  test('cut at every byte offset, and byte by byte, the frames are the same', () => {
    for (let at = 1; at < STREAM.length; at++)
      assert.deepEqual(decodeAll(STREAM, [at]), EXPECTED, `cut at ${at}`);
    const everyByte = Array.from({ length: STREAM.length - 1 }, (_, i) => i + 1);
    assert.deepEqual(decodeAll(STREAM, everyByte), EXPECTED);
  });

  test('cut twice inside one frame, around its multi-byte characters', () => {
    const second = (FRAMES[0]?.length ?? 0) + 1;
    const end = second + (FRAMES[1]?.length ?? 0);
    for (let a = second; a < end; a += 3)
      for (let b = a + 1; b < end; b += 5) assert.deepEqual(decodeAll(STREAM, [a, b]), EXPECTED);
  });

  test('a frame not yet whole is pending, not decoded', () => {
    const decoder = new EventStreamDecoder();
    decoder.append(STREAM.subarray(0, 3));
    assert.equal(decoder.next(), undefined);
    decoder.append(STREAM.subarray(3, 20));
    assert.equal(decoder.next(), undefined);
    assert.equal(decoder.pending, 20);
  });

  test('a corrupt CRC or an impossible length throws CorruptFrameError', () => {
    const corrupt = STREAM.slice();
    corrupt[20] = (corrupt[20] ?? 0) ^ 0xff;
    const decoder = new EventStreamDecoder();
    decoder.append(corrupt);
    assert.throws(() => decoder.next(), CorruptFrameError);
    for (const length of [0, 15, 16 * 1024 * 1024 + 1]) {
      const bad = new EventStreamDecoder();
      const prelude = new Uint8Array(12);
      new DataView(prelude.buffer).setUint32(0, length);
      bad.append(prelude);
      assert.throws(() => bad.next(), CorruptFrameError, String(length));
    }
  });
});
