/**
 * AWS event-stream framing: bytes arrive cut anywhere, so they are buffered until a whole frame
 * (its length is the first four bytes) is there, and the frame is then decoded by the smithy
 * codec, which checks both CRCs.
 *
 * This runs once per streamed frame, so it copies only what must outlive a push (the start of
 * a frame whose end has not arrived), and the header strings ConverseStream repeats on every
 * frame are looked up instead of decoded again (see bench/adapters for what each step saves).
 */
import { EventStreamCodec, type Message } from '@smithy/eventstream-codec';
import { fromUtf8 } from '@smithy/util-utf8';
import { InternedUtf8 } from './interned-utf8.ts';

/** Prelude (length, headers length, prelude CRC) plus the trailing message CRC. */
const OVERHEAD = 16;
/** AWS caps a frame at 16 MiB; a larger length means the prelude itself is corrupt. */
const MAX_FRAME = 16 * 1024 * 1024;
const EMPTY = new Uint8Array(0);

export interface DecodedFrame {
  readonly headers: Readonly<Record<string, string>>;
  readonly payload: Uint8Array;
}

export class CorruptFrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CorruptFrameError';
  }
}

/** What ConverseStream puts in its headers, frame after frame. */
export const CONVERSE_HEADER_STRINGS: readonly string[] = [
  ':message-type',
  ':event-type',
  ':exception-type',
  ':content-type',
  'event',
  'exception',
  'application/json',
  'messageStart',
  'contentBlockStart',
  'contentBlockDelta',
  'contentBlockStop',
  'messageStop',
  'metadata',
];
/** One for every stream: `decode` keeps no state (only `feed`, unused here, does). */
const CODEC = new EventStreamCodec(new InternedUtf8(CONVERSE_HEADER_STRINGS).decode, fromUtf8);

export class EventStreamDecoder {
  #buffer: Uint8Array = EMPTY;
  /** False while `#buffer` is still a view of the caller's bytes from the current push. */
  #owned = true;

  /** `bytes` must stay unchanged until `next()` has returned undefined. */
  append(bytes: Uint8Array): void {
    if (this.#buffer.length === 0) {
      this.#buffer = bytes;
      this.#owned = false;
    } else {
      this.#buffer = concat(this.#buffer, bytes);
      this.#owned = true;
    }
  }

  /** The next whole frame, undefined until one is buffered; throws CorruptFrameError. */
  next(): DecodedFrame | undefined {
    const buffer = this.#buffer;
    if (buffer.length < 4) return this.#wait();
    const length = frameLength(buffer);
    if (length < OVERHEAD || length > MAX_FRAME) throw new CorruptFrameError('frame length out of range');
    if (buffer.length < length) return this.#wait();
    const frame = this.#decode(buffer.subarray(0, length));
    this.#buffer = buffer.subarray(length);
    return frame;
  }

  /** Bytes of a frame that never completed. */
  get pending(): number {
    return this.#buffer.length;
  }

  /** A partial frame outlives this push: it is copied out of the caller's bytes, once. */
  #wait(): undefined {
    if (!this.#owned) {
      // A copy even of a Buffer, whose slice() is a view.
      this.#buffer = this.#buffer.length === 0 ? EMPTY : new Uint8Array(this.#buffer);
      this.#owned = true;
    }
    return undefined;
  }

  #decode(frame: Uint8Array): DecodedFrame {
    let message: Message;
    try {
      message = CODEC.decode(frame);
    } catch (error) {
      throw new CorruptFrameError(error instanceof Error ? error.message : 'undecodable frame');
    }
    const headers: Record<string, string> = {};
    for (const name in message.headers) {
      const header = message.headers[name];
      if (header?.type === 'string') headers[name] = header.value;
    }
    return { headers, payload: message.body };
  }
}

/** The prelude's first field, big-endian, without a DataView per frame. */
function frameLength(buffer: Uint8Array): number {
  return (
    (((buffer[0] ?? 0) << 24) | ((buffer[1] ?? 0) << 16) | ((buffer[2] ?? 0) << 8) | (buffer[3] ?? 0)) >>> 0
  );
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
