/** A webhook receiver for tests of budget alerts: a real HTTP server that records what arrives. */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IDEMPOTENCY_HEADER, SIGNATURE_HEADER } from './signature.ts';

export interface Received {
  readonly key: string;
  readonly signature: string;
  readonly body: string;
}

export interface Receiver {
  readonly url: string;
  /** Every request, in order of arrival, including those answered with an error. */
  readonly requests: Received[];
  /** Requests answered 2xx. */
  readonly delivered: Received[];
  /** Starts listening (again) on the same port. */
  up(): Promise<void>;
  /** Stops listening: attempts meet a closed port. */
  down(): Promise<void>;
}

/**
 * Picks a free port and leaves it closed until `up()`. The first `failures` requests after
 * that are answered 503, with `failureBody` (default `try later`).
 */
export async function webhookReceiver(
  options: { failures?: number; failureBody?: string } = {},
): Promise<Receiver> {
  const requests: Received[] = [];
  const delivered: Received[] = [];
  let failures = options.failures ?? 0;
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received = {
        key: String(req.headers[IDEMPOTENCY_HEADER]),
        signature: String(req.headers[SIGNATURE_HEADER]),
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(received);
      if (failures > 0) {
        failures--;
        res.writeHead(503).end(options.failureBody ?? 'try later');
        return;
      }
      delivered.push(received);
      res.writeHead(204).end();
    });
  };
  let server: Server | undefined = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const down = async () => {
    if (!server) return;
    const closing = server;
    server = undefined;
    closing.closeAllConnections();
    await new Promise((resolve) => closing.close(resolve));
  };
  await down();
  return {
    url: `http://127.0.0.1:${port}/hooks/budget?source=gateway`,
    requests,
    delivered,
    down,
    up: async () => {
      server = createServer(handler);
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
    },
  };
}

/** Polls `condition` every 20 ms for up to `ms` (generous: the suite runs on a loaded machine). */
export async function waitFor(condition: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The webhook policy that lets tests deliver to their receivers on 127.0.0.1. */
export const LOCAL_RECEIVERS = { allowHttp: 'loopback', allowPrivate: true } as const;
