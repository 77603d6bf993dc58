/**
 * Upstream text never carries the gateway's credentials to a client or a log, through HTTP on all
 * three front doors, JSON and streamed. The test's upstreams echo back the credential they were
 * sent (whole, and a 12-character piece of it) in every error: a configured key that no
 * key-shaped pattern recognises, and an OAuth token the gateway obtained at run time. A 429, a 503
 * and a 529 are answered in the gateway's own words; a 400 keeps the upstream's message, the
 * credential cut out of it.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, type TestContext, test } from 'node:test';
import { type ChatTestApp, localUpstream, startChatApp } from '../front-doors/chat-completions/testing.ts';
import { REDACTED, SECRET_RUN } from '../upstream/index.ts';

const KEY = 'mock-secret-KEY0123456789';
const messages = [{ role: 'user', content: 'hello' }];

type Mode = 429 | 503 | 529 | 400 | 'mid-stream';

/** The credential a request carried: a bearer token or an Anthropic key. */
function credentialOf(request: IncomingMessage): string {
  const bearer = request.headers.authorization?.replace(/^Bearer /, '');
  return bearer ?? String(request.headers['x-api-key'] ?? '');
}

/** An upstream error of the request's API whose message quotes the credential it was sent. */
function answer(request: IncomingMessage, body: { stream?: boolean }, mode: Mode, response: ServerResponse) {
  const credential = credentialOf(request);
  const quoted = `${credential} (${credential.slice(5, 17)})`;
  const openai = request.url?.endsWith('/chat/completions') === true;
  if (mode === 'mid-stream' && body.stream === true) {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    if (openai) {
      const chunk = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm' };
      response.write(
        `data: ${JSON.stringify({ ...chunk, choices: [{ index: 0, delta: { content: 'Hi' } }] })}\n\n`,
      );
      response.end(`data: ${JSON.stringify({ error: { message: `stream broke for ${quoted}` } })}\n\n`);
    } else {
      const start = {
        type: 'message_start',
        message: {
          id: 'msg',
          type: 'message',
          role: 'assistant',
          content: [],
          model: 'm',
          usage: { input_tokens: 1, output_tokens: 0 },
        },
      };
      response.write(`event: message_start\ndata: ${JSON.stringify(start)}\n\n`);
      // Some content first: a failure before any is not mid-stream (it keeps an HTTP status).
      const block = { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } };
      const delta = { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } };
      response.write(`event: content_block_start\ndata: ${JSON.stringify(block)}\n\n`);
      response.write(`event: content_block_delta\ndata: ${JSON.stringify(delta)}\n\n`);
      const error = { type: 'error', error: { type: 'api_error', message: `stream broke for ${quoted}` } };
      response.end(`event: error\ndata: ${JSON.stringify(error)}\n\n`);
    }
    return;
  }
  const status = mode === 'mid-stream' ? 500 : mode;
  const text =
    status === 400
      ? `Invalid value for 'temperature': sent with key ${quoted}`
      : `Quota of key ${quoted} used up`;
  const type = status === 529 ? 'overloaded_error' : status === 429 ? 'rate_limit_error' : 'api_error';
  const payload = openai
    ? { error: { message: text, type } }
    : { type: 'error', error: { type, message: text } };
  response
    .writeHead(status, { 'content-type': 'application/json', 'retry-after': '7' })
    .end(JSON.stringify(payload));
}

/** The test's upstream: every API's error for the current mode, and the credentials it saw. */
async function echoingUpstream(t: TestContext) {
  const state: { mode: Mode; seen: Set<string> } = { mode: 429, seen: new Set() };
  const url = await localUpstream(t, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      state.seen.add(credentialOf(request));
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { stream?: boolean };
      answer(request, body, state.mode, response);
    });
  });
  return { state, url };
}

/** Every run of SECRET_RUN characters of the secret that appears in the text. */
function piecesOf(secret: string, text: string): string[] {
  const found: string[] = [];
  for (let at = 0; at + SECRET_RUN <= secret.length; at++) {
    const piece = secret.slice(at, at + SECRET_RUN);
    if (text.includes(piece)) found.push(piece);
  }
  return found;
}

interface Door {
  readonly url: string;
  body(model: string, stream: boolean): Record<string, unknown>;
}

const DOORS: readonly Door[] = [
  { url: '/v1/chat/completions', body: (model, stream) => ({ model, messages, stream }) },
  { url: '/v1/messages', body: (model, stream) => ({ model, messages, max_tokens: 20, stream }) },
  { url: '/v1/responses', body: (model, stream) => ({ model, input: 'hello', stream }) },
];

async function gatewayWith(t: TestContext, auth: Record<string, Record<string, unknown>>, env = {}) {
  const upstream = await echoingUpstream(t);
  const lines: string[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')));
  const app = await startChatApp({
    endpoint: { baseUrl: upstream.url, ...(auth.openai ? { auth: auth.openai } : {}) },
    anthropicEndpoint: {
      baseUrl: upstream.url.replace(/\/v1$/, ''),
      ...(auth.anthropic ? { auth: auth.anthropic } : {}),
    },
    env,
    routing: { breakerFailures: 1000 },
    logStream,
  });
  t.after(() => app.close());
  return { app, upstream, lines };
}

async function send(app: ChatTestApp, door: Door, model: string, stream: boolean) {
  const response = await app.app.inject({
    method: 'POST',
    url: door.url,
    headers: app.headers(),
    payload: door.body(model, stream),
  });
  const message = response.statusCode === 200 ? '' : String(response.json().error?.message);
  return { status: response.statusCode, body: response.body, message, headers: response.headers };
}

/** What the client gets for each mode: the status, and what its message says. */
function assertAnswer(mode: Mode, answer: Awaited<ReturnType<typeof send>>, where: string): void {
  if (mode === 429) {
    assert.equal(answer.status, 429, where);
    assert.match(answer.message, /'developer' is rate limiting .*; retry in 7 seconds\./, where);
    assert.equal(answer.headers['retry-after'], '7', where);
  } else if (mode === 400) {
    assert.equal(answer.status, 400, where);
    assert.match(
      answer.message,
      /Invalid value for 'temperature': sent with key/,
      `${where}: the message helps`,
    );
    assert.ok(answer.message.includes(REDACTED), `${where}: ${answer.message}`);
  } else if (mode === 'mid-stream') {
    assert.equal(answer.status, 200, where);
    assert.match(answer.body, /failed mid-stream/, where);
  } else {
    assert.ok([502, 503, 529].includes(answer.status), `${where}: ${answer.status}`);
    assert.match(answer.message, /^The provider 'developer' /, where);
  }
}

describe("the gateway's credentials in upstream text", () => {
  test('a configured key: gone from every answer of every front door, and from the log', async (t) => {
    const key = { type: 'api-key', header: 'x-api-key', key: 'env:TEST_UPSTREAM_KEY' };
    const bearer = { type: 'bearer', token: 'env:TEST_UPSTREAM_KEY' };
    const { app, upstream, lines } = await gatewayWith(
      t,
      { openai: bearer, anthropic: key },
      { TEST_UPSTREAM_KEY: KEY },
    );
    const modes: Mode[] = [429, 503, 529, 400, 'mid-stream'];
    for (const mode of modes) {
      upstream.state.mode = mode;
      for (const door of DOORS)
        for (const model of ['gpt-5.4@developer', 'claude-sonnet@developer'])
          for (const stream of mode === 'mid-stream' ? [true] : [false, true]) {
            const where = `${mode} ${door.url} ${model}${stream ? ' streamed' : ''}`;
            const answer = await send(app, door, model, stream);
            assertAnswer(mode, answer, where);
            assert.deepEqual(piecesOf(KEY, answer.body), [], `${where}: ${answer.body}`);
          }
    }
    assert.deepEqual([...upstream.state.seen], [KEY], 'the upstream was sent the key, and echoed it');
    assert.ok(lines.some((line) => line.includes('request completed') || line.includes('request failed')));
    assert.deepEqual(piecesOf(KEY, lines.join('')), [], 'nothing of it in the log');
  });

  test('an OAuth token obtained at run time is cut out of the upstream message too', async (t) => {
    const serviceAccount = {
      type: 'google-service-account',
      credentials: 'env:SIM_GOOGLE_SERVICE_ACCOUNT',
      tokenUrl: 'simulator/google/token',
    };
    const { app, upstream, lines } = await gatewayWith(t, { openai: serviceAccount });
    upstream.state.mode = 400;
    for (const door of DOORS) {
      const answer = await send(app, door, 'gpt-5.4@developer', false);
      assertAnswer(400, answer, door.url);
      const [token] = upstream.state.seen;
      assert.match(token ?? '', /^ya29\./, 'a token from the token endpoint');
      assert.deepEqual(piecesOf(token ?? '', answer.body), [], `${door.url}: ${answer.body}`);
    }
    const [token] = upstream.state.seen;
    assert.deepEqual(piecesOf(token ?? '', lines.join('')), [], 'nothing of it in the log');
  });
});
