/**
 * AWS event-stream framing: bytes arrive cut anywhere, so they are buffered until a whole frame
 * (its length is the first four bytes) is there, and the frame is then decoded by the smithy
 * codec, which checks both CRCs.
 */
import { EventStreamCodec, type Message } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

/** Prelude (length, headers length, prelude CRC) plus the trailing message CRC. */
const OVERHEAD = 16;
/** AWS caps a frame at 16 MiB; a larger length means the prelude itself is corrupt. */
const MAX_FRAME = 16 * 1024 * 1024;

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

export class EventStreamDecoder {
  readonly #codec = new EventStreamCodec(toUtf8, fromUtf8);
  #buffer: Uint8Array = new Uint8Array(0);

  append(bytes: Uint8Array): void {
    this.#buffer = concat(this.#buffer, bytes);
  }

  /** The next whole frame, undefined until one is buffered; throws CorruptFrameError. */
  next(): DecodedFrame | undefined {
    if (this.#buffer.length < 4) return undefined;
    const view = new DataView(this.#buffer.buffer, this.#buffer.byteOffset, this.#buffer.byteLength);
    const length = view.getUint32(0, false);
    if (length < OVERHEAD || length > MAX_FRAME) throw new CorruptFrameError('frame length out of range');
    if (this.#buffer.length < length) return undefined;
    const frame = this.#decode(this.#buffer.subarray(0, length));
    this.#buffer = this.#buffer.subarray(length);
    return frame;
  }

  /** Bytes of a frame that never completed. */
  get pending(): number {
    return this.#buffer.length;
  }

  #decode(frame: Uint8Array): DecodedFrame {
    let message: Message;
    try {
      message = this.#codec.decode(frame);
    } catch (error) {
      throw new CorruptFrameError(error instanceof Error ? error.message : 'undecodable frame');
    }
    const headers: Record<string, string> = {};
    for (const [name, header] of Object.entries(message.headers)) {
      if (header.type === 'string') headers[name] = header.value;
    }
    return { headers, payload: message.body };
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b.slice();
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
