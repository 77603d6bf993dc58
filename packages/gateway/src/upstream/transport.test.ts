import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { type Simulator, startSimulator } from '@app/upstream-simulator';
import { pino } from 'pino';
import { Value } from 'typebox/value';
import type { UpstreamTarget } from '../contracts.ts';
import { type UpstreamConfig, UpstreamConfigSchema } from './config.ts';
import { Transport, TransportError } from './transport.ts';

const config = (overrides: Partial<UpstreamConfig> = {}): UpstreamConfig => ({
  ...(Value.Default(UpstreamConfigSchema, {}) as UpstreamConfig),
  ...overrides,
});

function logger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: pino({ level: 'warn' }, stream), lines };
}

const chat = (headers: Record<string, string> = {}, body: Record<string, unknown> = {}) => ({
  method: 'POST' as const,
  path: '/chat/completions',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ model: 'sim-small', messages: [{ role: 'user', content: 'hi' }], ...body }),
});

function target(baseUrl: string, extra: Partial<UpstreamTarget> = {}): UpstreamTarget {
  return {
    adapter: 'openai-compatible',
    baseUrl,
    auth: { type: 'none' },
    upstreamModel: 'sim-small',
    timeoutMs: 5_000,
    ...extra,
  };
}

async function failureOf(promise: Promise<unknown>): Promise<TransportError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof TransportError, String(error));
    return error;
  }
  assert.fail('expected a transport failure');
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let sim: Simulator;
before(async () => {
  sim = await startSimulator();
});
after(() => sim.close());

describe('upstream transport', () => {
  test('reuses keep-alive connections for sequential requests, under the base URL path', async () => {
    const transport = new Transport(config(), logger().log);
    const before = sim.connections;
    for (let i = 0; i < 20; i++) {
      const response = await transport.send(target(sim.baseUrl), chat(), new AbortController().signal);
      assert.equal(response.status, 200);
      await response.text();
    }
    // undici may open a second socket while the first is being released; never one per request.
    assert.ok(sim.connections - before <= 2, `${sim.connections - before} connections for 20 requests`);
    assert.equal(sim.received.at(-1)?.path, '/v1/chat/completions');
    await transport.close();
  });

  test('applies bearer and custom-header authentication', async () => {
    const transport = new Transport(config(), logger().log);
    const signal = new AbortController().signal;
    await (
      await transport.send(target(sim.baseUrl, { auth: { type: 'bearer', token: 'tok-1' } }), chat(), signal)
    ).text();
    assert.equal(sim.received.at(-1)?.headers.authorization, 'Bearer tok-1');
    const header = { type: 'header', name: 'Api-Key', value: 'k-2' } as const;
    await (await transport.send(target(sim.baseUrl, { auth: header }), chat(), signal)).text();
    assert.equal(sim.received.at(-1)?.headers['api-key'], 'k-2');
    await transport.close();
  });

  test("times out waiting for headers after the target's timeout", async () => {
    const transport = new Transport(config(), logger().log);
    const request = transport.send(
      target(sim.baseUrl, { timeoutMs: 100 }),
      chat({ 'x-sim-hang': 'headers' }),
      new AbortController().signal,
    );
    const failure = await failureOf(request);
    assert.deepEqual([failure.kind, failure.code], ['timeout', 'UND_ERR_HEADERS_TIMEOUT']);
    await transport.close();
  });

  test('times out when the body goes silent for longer than bodyTimeoutMs', async () => {
    const transport = new Transport(config({ bodyTimeoutMs: 100 }), logger().log);
    const response = await transport.send(
      target(sim.baseUrl),
      chat({ 'x-sim-hang': 'body' }, { stream: true }),
      new AbortController().signal,
    );
    const failure = await failureOf(response.text());
    assert.deepEqual([failure.kind, failure.code], ['timeout', 'UND_ERR_BODY_TIMEOUT']);
    await transport.close();
  });

  test('an abort signal cancels the call and the upstream sees the connection close', async () => {
    const transport = new Transport(config(), logger().log);
    const controller = new AbortController();
    const response = await transport.send(
      target(sim.baseUrl),
      chat({ 'x-sim-token-delay-ms': '30' }, { stream: true }),
      controller.signal,
    );
    const before = sim.abortedStreams;
    setTimeout(() => controller.abort(), 50);
    const failure = await failureOf(
      (async () => {
        for await (const _ of response.chunks()) {
          // reading until the abort
        }
      })(),
    );
    assert.equal(failure.kind, 'aborted');
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(sim.abortedStreams, before + 1);
    await transport.close();
  });

  test('retries a refused connection (never sent) and reports it as a connection failure', async () => {
    const closed = createServer();
    const url = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const { log, lines } = logger();
    const transport = new Transport(config({ connectRetries: 2 }), log);
    const failure = await failureOf(transport.send(target(url), chat(), new AbortController().signal));
    assert.deepEqual([failure.kind, failure.code, failure.unsent], ['connection', 'ECONNREFUSED', true]);
    assert.equal(lines.filter((line) => line.includes('retrying')).length, 2);
    assert.ok(
      lines.every((line) => !line.includes('127.0.0.1')),
      'no upstream address in logs',
    );
    await transport.close();
  });

  test('does not retry once the request may have reached the upstream (connection reset)', async () => {
    let seen = 0;
    const resetting = createServer((req) => {
      seen++;
      req.socket.destroy();
    });
    const url = await listen(resetting);
    const transport = new Transport(config({ connectRetries: 3 }), logger().log);
    const failure = await failureOf(transport.send(target(url), chat(), new AbortController().signal));
    assert.equal(failure.kind, 'connection');
    assert.equal(failure.unsent, false);
    assert.equal(seen, 1);
    await transport.close();
    resetting.close();
  });

  test('text(maxBytes) keeps the first bytes of a large error body only', async () => {
    const big = createServer((_req, res) => res.writeHead(500).end('x'.repeat(200_000)));
    const url = await listen(big);
    const transport = new Transport(config(), logger().log);
    const response = await transport.send(target(url), chat(), new AbortController().signal);
    assert.equal((await response.text(1024)).length, 1024);
    await transport.close();
    big.close();
  });
});
