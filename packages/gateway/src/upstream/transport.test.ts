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
import { CredentialError, type Signer } from './credentials/signer.ts';
import { createUpstream, SecretRedactor } from './index.ts';
import { type OutgoingRequest, Transport, TransportError } from './transport.ts';

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

/** A signed chat request to `origin`'s OpenAI-compatible path (the simulator checks no key there). */
function chat(
  origin: string,
  headers: Record<string, string> = {},
  body: Record<string, unknown> = {},
  timeoutMs = 5_000,
): OutgoingRequest {
  return {
    method: 'POST',
    url: `${origin}/v1/chat/completions`,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'sim-small', messages: [{ role: 'user', content: 'hi' }], ...body }),
    timeoutMs,
  };
}

/** A server that records each request's headers and answers 200. */
async function recordingServer() {
  const seen: Record<string, string | string[] | undefined>[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume().on('end', () => res.end('{}'));
  });
  return { server, seen, origin: await listen(server) };
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

const signal = () => new AbortController().signal;

let sim: Simulator;
before(async () => {
  sim = await startSimulator();
});
after(() => sim.close());

describe('upstream transport', () => {
  test('reuses keep-alive connections per origin, whatever the path, and keeps path and query', async () => {
    const transport = new Transport(config(), logger().log);
    const before = sim.connections;
    for (let i = 0; i < 20; i++) {
      const request = chat(sim.url);
      // Another path of the same origin (the OpenAI API, 401 without its key): the same pool.
      const url = i % 2 ? `${sim.url}/openai/v1/chat/completions?i=${i}` : request.url;
      const response = await transport.send({ ...request, url }, signal());
      assert.equal(response.status, i % 2 ? 401 : 200);
      await response.text();
    }
    // undici may open a second socket while the first is being released; never one per request.
    assert.ok(sim.connections - before <= 2, `${sim.connections - before} connections for 20 requests`);
    assert.deepEqual(
      sim.received.slice(-2).map((request) => request.path),
      ['/v1/chat/completions', '/openai/v1/chat/completions?i=19'],
    );
    await transport.close();
  });

  test('sends exactly the headers it is given: it adds no authentication of its own', async () => {
    const { server, seen, origin } = await recordingServer();
    const transport = new Transport(config(), logger().log);
    const signed = { authorization: 'Bearer tok-1', 'api-key': 'k-2', 'x-amz-date': '20260901T000000Z' };
    await (await transport.send(chat(origin, signed), signal())).text();
    await (await transport.send(chat(origin), signal())).text();
    // Beyond the given headers only the connection-level ones HTTP/1.1 needs.
    const own = ['host', 'connection', 'content-length'];
    const given = (headers: Record<string, string | string[] | undefined> | undefined) =>
      Object.fromEntries(Object.entries(headers ?? {}).filter(([name]) => !own.includes(name)));
    assert.deepEqual(given(seen[0]), { 'content-type': 'application/json', ...signed });
    assert.deepEqual(given(seen[1]), { 'content-type': 'application/json' });
    await transport.close();
    server.close();
  });

  test("times out waiting for headers after the request's timeoutMs", async () => {
    const transport = new Transport(config(), logger().log);
    const request = transport.send(chat(sim.url, { 'x-sim-hang': 'headers' }, {}, 100), signal());
    const failure = await failureOf(request);
    assert.deepEqual([failure.kind, failure.code], ['timeout', 'UND_ERR_HEADERS_TIMEOUT']);
    await transport.close();
  });

  test('times out when the body goes silent for longer than bodyTimeoutMs', async () => {
    const transport = new Transport(config({ bodyTimeoutMs: 100 }), logger().log);
    const response = await transport.send(
      chat(sim.url, { 'x-sim-hang': 'body' }, { stream: true }),
      signal(),
    );
    const failure = await failureOf(response.text());
    assert.deepEqual([failure.kind, failure.code], ['timeout', 'UND_ERR_BODY_TIMEOUT']);
    await transport.close();
  });

  test('an abort signal cancels the call and the upstream sees the connection close', async () => {
    const transport = new Transport(config(), logger().log);
    const controller = new AbortController();
    const response = await transport.send(
      chat(sim.url, { 'x-sim-token-delay-ms': '30' }, { stream: true }),
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

  test('each(): every part in order from the data events; an abort rejects as aborted, a throw as itself', async () => {
    const transport = new Transport(config(), logger().log);
    const stream = chat(sim.url, {}, { stream: true });
    const whole = await (await transport.send(stream, signal())).text();
    const parts: string[] = [];
    await (await transport.send(stream, signal())).each((bytes) => parts.push(Buffer.from(bytes).toString()));
    // Two calls of one prompt: the same events, apart from each answer's own id.
    const sameBut = (text: string) => text.replaceAll(/chatcmpl-sim[0-9a-f]+/g, 'chatcmpl-ID');
    assert.equal(sameBut(parts.join('')), sameBut(whole));

    const controller = new AbortController();
    const slow = await transport.send(
      chat(sim.url, { 'x-sim-token-delay-ms': '30' }, { stream: true }),
      controller.signal,
    );
    setTimeout(() => controller.abort(), 50);
    assert.equal((await failureOf(slow.each(() => {}))).kind, 'aborted');

    const broken = new Error('handler bug');
    const thrown = await transport.send(stream, signal());
    await assert.rejects(
      thrown.each(() => {
        throw broken;
      }),
      (error) => error === broken,
    );
    await transport.close();
  });

  test('each(): discard() while reading ends the reading (resolves) and cuts the connection', async () => {
    const transport = new Transport(config(), logger().log);
    const response = await transport.send(
      chat(sim.url, { 'x-sim-token-delay-ms': '10' }, { stream: true }),
      signal(),
    );
    let parts = 0;
    await response.each(() => {
      if (++parts === 2) response.discard();
    });
    assert.equal(parts, 2);
    await transport.close();
  });

  test('retries a refused connection (never sent) and reports it as a connection failure', async () => {
    const closed = createServer();
    const url = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const { log, lines } = logger();
    const transport = new Transport(config({ connectRetries: 2 }), log);
    const failure = await failureOf(transport.send(chat(url), signal()));
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
    const failure = await failureOf(transport.send(chat(url), signal()));
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
    const response = await transport.send(chat(url), signal());
    assert.equal((await response.text(1024)).length, 1024);
    await transport.close();
    big.close();
  });
});

describe('upstream (sign, then send)', () => {
  const offer = {
    upstreamModel: 'sim-small',
    efforts: {},
    tiers: ['standard'],
    defaultMaxOutputTokens: 1024,
    maxOutputTokens: 1024,
  } as const;
  const targetOf = (baseUrl: string, signer: Signer): UpstreamTarget => ({
    adapter: 'openai-compatible',
    endpoint: { baseUrl },
    signer,
    offer,
    timeoutMs: 5_000,
  });
  const signer = (sign: Signer['sign']): Signer => ({ kind: 'test', sign, close: async () => {} });

  test("the signer's headers are the ones that reach the upstream", async () => {
    const { server, seen, origin } = await recordingServer();
    const upstream = await createUpstream({
      config: config(),
      log: logger().log,
      secrets: new SecretRedactor(),
    });
    const signed = signer(async (request) => ({ ...request.headers, authorization: 'Bearer signed-1' }));
    const { timeoutMs: _, ...request } = chat(origin, { 'x-request': 'r' });
    const response = await upstream.send(targetOf(origin, signed), request, signal());
    assert.equal(response.status, 200);
    await response.text();
    assert.equal(seen[0]?.authorization, 'Bearer signed-1');
    assert.equal(seen[0]?.['x-request'], 'r');
    await upstream.close();
    server.close();
  });

  test('a CredentialError while signing is a credentials TransportError, and nothing is sent', async (t) => {
    const { server, seen, origin } = await recordingServer();
    const { log, lines } = logger();
    const secrets = new SecretRedactor();
    secrets.add('azure-client-secret-value');
    const upstream = await createUpstream({ config: config(), log, secrets });
    t.after(async () => {
      await upstream.close();
      server.close();
    });
    // A token endpoint's error code is quoted in the message; one echoing a secret is cleared.
    const failing = signer(async () => {
      throw new CredentialError(
        'google-service-account (env:SA): token request failed (HTTP 400, azure-client-secret-value)',
      );
    });
    const { timeoutMs: _, ...request } = chat(origin);
    const failure = await failureOf(upstream.send(targetOf(origin, failing), request, signal()));
    assert.deepEqual([failure.kind, failure.unsent], ['credentials', true]);
    assert.equal(seen.length, 0);
    const line = lines.find((entry) => entry.includes('upstream credentials unavailable')) ?? '';
    assert.match(line, /env:SA\): token request failed \(HTTP 400, \[redacted\]\)/);
  });
});
