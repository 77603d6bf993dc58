/**
 * A body over the limit through a real listening server (inject shows no resets): the client
 * sends all of it before reading, and still reads the 413 in the service's format.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { DrainBounds } from './oversized-body.ts';
import { buildTestApp } from './test-app.ts';
import { answered413, uploadThenRead } from './upload-client.ts';

const MiB = 1024 * 1024;
const TOO_BIG = { error: { code: 'too_big', message: 'Too big.' } };

async function listening(
  oversizedBodyDrain?: DrainBounds,
): Promise<{ app: FastifyInstance; origin: string; [Symbol.asyncDispose]: () => Promise<void> }> {
  const { app } = await buildTestApp({
    bodyLimitBytes: MiB,
    ...(oversizedBodyDrain ? { oversizedBodyDrain } : {}),
  });
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, origin, [Symbol.asyncDispose]: () => app.close() };
}

describe('a body over the limit', () => {
  for (const chunked of [false, true]) {
    it(`is answered 413 with Connection: close, read by a client that sends it all first (${chunked ? 'chunked' : 'Content-Length'})`, async () => {
      await using server = await listening();
      const outcome = await uploadThenRead(server.origin, { path: '/echo', bodyBytes: 20 * MiB, chunked });
      assert.deepEqual(JSON.parse(answered413(outcome, 20 * MiB)), TOO_BIG);
    });
  }

  it('is read and discarded only up to the byte bound, then the connection is cut', async () => {
    await using server = await listening({ bytes: MiB, ms: 60_000 });
    const outcome = await uploadThenRead(server.origin, {
      path: '/echo',
      bodyBytes: 64 * MiB,
      chunked: false,
    });
    assert.match(String(outcome.error), /EPIPE|ECONNRESET/);
    assert.ok(outcome.sent < 64 * MiB, `sent ${outcome.sent}`);
  });

  it(
    'from a client that goes silent is closed once the time bound has passed',
    { timeout: 30_000 },
    async () => {
      await using server = await listening({ bytes: 64 * MiB, ms: 100 });
      const accepted = once(server.app.server, 'connection') as Promise<[Socket]>;
      const outcome = await uploadThenRead(server.origin, {
        path: '/echo',
        bodyBytes: 20 * MiB,
        chunked: false,
        stopAfter: 64 * 1024,
      });
      try {
        assert.equal(outcome.status, 413);
        const [serverSide] = await accepted;
        // Without the bound the server would hold this connection open for as long as the client.
        if (!serverSide.destroyed) await once(serverSide, 'close');
      } finally {
        outcome.hangUp();
      }
    },
  );

  it('ends the connection: a request sent after the body is not served', async () => {
    await using server = await listening();
    const seen: string[] = [];
    server.app.server.on('request', (request: IncomingMessage) => seen.push(String(request.url)));
    const { port } = new URL(server.origin);
    const client = connect({ host: '127.0.0.1', port: Number(port) });
    const received: Buffer[] = [];
    client.on('data', (chunk: Buffer) => received.push(chunk));
    const body = Buffer.alloc(2 * MiB, 'a');
    client.write(
      `POST /echo HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    client.write(body);
    client.end('GET /teapot HTTP/1.1\r\nhost: x\r\n\r\n');
    await once(client, 'close');
    const text = Buffer.concat(received).toString();
    assert.equal(text.match(/^HTTP\/1\.1 /gm)?.length, 1, text);
    assert.match(text, /^HTTP\/1\.1 413 /);
    assert.deepEqual(seen, ['/echo']);
  });
});
