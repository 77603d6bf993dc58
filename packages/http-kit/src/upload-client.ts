import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

/** An upload as a test client sends it, over a raw connection. */
export interface Upload {
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Bytes of body (JSON-ish filler) in all. */
  readonly bodyBytes: number;
  /** Chunked transfer encoding instead of a Content-Length. */
  readonly chunked: boolean;
  /**
   * Stop sending after this many body bytes and read; the request is never finished and this
   * side stays open until `hangUp` (to see whether the server closes a silent client itself).
   */
  readonly stopAfter?: number;
}

export interface UploadOutcome {
  /** Body bytes handed to the connection before it failed or the upload ended. */
  readonly sent: number;
  /** The error code (EPIPE, ECONNRESET...) the connection failed with, if it did. */
  readonly error: string | undefined;
  readonly status: number | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly hangUp: () => void;
}

const CHUNK = Buffer.alloc(64 * 1024, 'a');

/**
 * Sends the whole body before reading anything, as curl and most upload clients do, then reads
 * the answer to its end. A server that answers early and then resets the connection makes this
 * client fail on a write, before it has read a byte: what a client on a real network sees.
 */
export async function uploadThenRead(origin: string, upload: Upload): Promise<UploadOutcome> {
  const { hostname, port } = new URL(origin);
  const socket = connect({ host: hostname, port: Number(port), allowHalfOpen: true });
  socket.pause();
  let error: string | undefined;
  socket.on('error', (failure: NodeJS.ErrnoException) => {
    error ??= failure.code ?? failure.message;
  });
  await once(socket, 'connect');
  const sent = await sendUpload(socket, origin, upload);
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  socket.resume();
  // Ends when the server closes its side (or the connection fails); this side stays open.
  await Promise.race([once(socket, 'end'), once(socket, 'close')]);
  const hangUp = (): void => {
    socket.destroy();
  };
  if (upload.stopAfter === undefined) hangUp();
  return { sent, error, hangUp, ...parseResponse(Buffer.concat(received).toString('utf8')) };
}

async function sendUpload(socket: Socket, origin: string, upload: Upload): Promise<number> {
  const framing = upload.chunked ? 'transfer-encoding: chunked' : `content-length: ${upload.bodyBytes}`;
  const headers = Object.entries({ 'content-type': 'application/json', ...upload.headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const head = `POST ${upload.path} HTTP/1.1\r\nhost: ${new URL(origin).host}\r\n${headers}${framing}\r\n\r\n`;
  const limit = Math.min(upload.bodyBytes, upload.stopAfter ?? upload.bodyBytes);
  let sent = 0;
  try {
    await write(socket, head);
    while (sent < limit) {
      const chunk = CHUNK.subarray(0, Math.min(CHUNK.length, limit - sent));
      await write(socket, upload.chunked ? frame(chunk) : chunk);
      sent += chunk.length;
    }
    if (upload.chunked && upload.stopAfter === undefined) await write(socket, '0\r\n\r\n');
  } catch {
    // The failure is recorded by the socket's error listener.
  }
  return sent;
}

function frame(chunk: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
}

function write(socket: Socket, data: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    if (socket.destroyed) reject(new Error('connection closed'));
    else socket.write(data, (failure) => (failure ? reject(failure) : resolve()));
  });
}

function parseResponse(text: string): Pick<UploadOutcome, 'status' | 'headers' | 'body'> {
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) return { status: undefined, headers: {}, body: '' };
  const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: text.slice(split + 4) };
}

/**
 * Asserts what a client that sent a body over the limit must see: the whole body sent without
 * EPIPE/ECONNRESET, then a 413 with `Connection: close`. Returns the answer's body, for the
 * caller to check the service's error format.
 */
export function answered413(outcome: UploadOutcome, bodyBytes: number): string {
  assert.equal(outcome.error, undefined, 'no EPIPE/ECONNRESET while sending');
  assert.equal(outcome.sent, bodyBytes);
  assert.equal(outcome.status, 413);
  assert.equal(outcome.headers.connection, 'close');
  return outcome.body;
}
