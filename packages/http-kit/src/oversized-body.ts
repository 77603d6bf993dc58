import { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** How much of an over-limit body is still read (and thrown away) after the 413, and for how long. */
export interface DrainBounds {
  readonly bytes: number;
  readonly ms: number;
}

const DRAIN_BOUNDS = Symbol('oversized body drain bounds');
const MIN_DRAIN_BYTES = 64 * 1024 * 1024;
const DRAIN_MS = 10_000;

/**
 * A few times the limit, and never less than 64 MiB so a service with a small limit (the energy
 * service's 1 MiB) still answers an upload a few megabytes too large; ten seconds at most
 * (nginx's and Apache's lingering close wait similar times). Past either bound the connection is
 * cut: reading on would only let a client hold a connection and bandwidth for nothing.
 */
export function defaultDrainBounds(bodyLimitBytes: number): DrainBounds {
  return { bytes: Math.max(4 * bodyLimitBytes, MIN_DRAIN_BYTES), ms: DRAIN_MS };
}

/** Sets the drain bounds every error handler of this instance (and its child scopes) uses. */
export function setDrainBounds(app: FastifyInstance, bounds: DrainBounds): void {
  app.decorate(DRAIN_BOUNDS, bounds);
}

function drainBoundsOf(app: FastifyInstance): DrainBounds {
  const bounds = Reflect.get(app, DRAIN_BOUNDS) as DrainBounds | undefined;
  return bounds ?? defaultDrainBounds(app.initialConfig.bodyLimit ?? MIN_DRAIN_BYTES);
}

/**
 * Prepares the answer to a body over the limit so the client can read it. The answer goes out
 * while the client may still be sending (at once when the declared Content-Length is over the
 * limit; at the limit for a chunked body), with `Connection: close`. Node closes such a
 * connection with `socket.destroySoon()` as soon as the answer is written (the HTTP server's
 * response-finish handler): the kernel then resets the connection, because request bytes are
 * left unread or keep arriving, and the client's next write fails with EPIPE/ECONNRESET before it
 * reads the 413. Instead this connection closes lingering: the answer, then our FIN, then the
 * rest of the body is read and discarded until the client has sent it all or a bound is crossed.
 */
export function closeAfterAnswer(reply: FastifyReply): void {
  reply.header('connection', 'close');
  const raw = reply.request.raw;
  const socket = raw.socket;
  // Nothing left unread (or no real socket, as under inject): Node's own close is right.
  if (raw.complete || !(socket instanceof Socket)) return;
  const bounds = drainBoundsOf(reply.server);
  socket.destroySoon = () => lingeringClose(socket, bounds);
}

function lingeringClose(socket: Socket, bounds: DrainBounds): void {
  if (socket.writable) socket.end();
  // The HTTP parser is fed no more: a request pipelined after the body must not be served on a
  // connection that answered "close" (its answer could not even be written).
  socket.removeAllListeners('data');
  const close = (): void => {
    socket.destroy();
  };
  const deadline = setTimeout(close, bounds.ms);
  let discarded = 0;
  socket.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > bounds.bytes) close();
  });
  socket.once('end', close);
  socket.once('close', () => clearTimeout(deadline));
  socket.resume();
}
